// Apply a payment attempt's outcome: what the processor says of the attempt, applied once. One
// transaction of conditional updates from `processing`, so a retried activity changes nothing
// twice; the payment.* event is recorded in that transaction. A payment that succeeded with the
// customer's consent then has its card kept. Saved-card charges record their outcomes with the
// same recordPaymentOutcome.
import type { Logger } from 'pino';
import { accountRefusal, type AccountStanding } from '../../domain/account-rules';
import { paymentFee } from '../../domain/fees';
import { centsFromDb } from '../../domain/money';
import { planOf } from '../../domain/plans';
import { findAccount } from '../../db/accounts';
import { findCheckout } from '../../db/checkouts';
import { changedRow, changeRecordingEventStatement } from '../../db/events';
import { runStatements, updateByIdStatement, type Statement } from '../../db/sql';
import { findPayment, processorReference, type PaymentRow } from '../../db/payments';
import { recordPagePayment } from '../invoices/collect';
import type { CardProcessor, ProcessorOutcome, ReportedCard } from '../../processor/port';
import { paymentView } from '../../views/payment';
import { keepCard } from '../cards/keep';
import { emailRow } from '../emails/keep';
import type { Locale } from '../../domain/locale';
import { isPaid } from '../../domain/checkout-rules';
import type { ProcessorServiceDeps, ServiceContext } from '../context';
import { inTransaction } from '../run';
import { paymentNow } from '../test-clocks/billing-now';

export type AttemptResult = 'succeeded' | 'failed' | 'pending';

/** An approval the service refused to keep: recorded like a decline, with the service's reason. */
export type Refusal = { status: 'refused'; code: string; message: string; card: ReportedCard };

/** What the processor decided (or the service refused to keep): what a payment records. */
export type DecidedOutcome = Extract<ProcessorOutcome, { status: 'approved' | 'declined' }> | Refusal;

/**
 * An account that may not take payments now (suspended) keeps no approval: one that arrives after
 * the suspension is released at the processor first (`release`: the session's approval unless
 * stated), so no card is charged, then recorded as a failure. `standing` is read only for an
 * approval.
 */
export async function keepable(
  standing: () => Promise<AccountStanding | null>,
  payment: PaymentRow,
  processor: CardProcessor,
  reference: string,
  outcome: ProcessorOutcome,
  release = () => processor.voidApproval(reference),
): Promise<ProcessorOutcome | Refusal> {
  if (outcome.status !== 'approved') return outcome;
  const account = await standing();
  const refusal = account === null ? null : accountRefusal(account, payment.mode);
  if (refusal === null) return outcome;
  await release();
  return { status: 'refused', code: refusal.reason!, message: 'The merchant cannot take payments right now; the card was not charged.', card: outcome.card };
}

/** What recording a payment's outcome needs of its merchant: the plan (the fee), the name and the customer's language (the receipt). */
export interface PaymentMerchant {
  plan: string;
  name: string;
  locale: Locale;
}

/** The receipt of a payment that succeeded, to the customer's email, if it has one. */
function receiptOf(payment: PaymentRow, merchant: PaymentMerchant, now: Date) {
  if (payment.status !== 'succeeded' || payment.customer_email === null) return undefined;
  const card = payment.card_scheme === null || payment.card_last4 === null ? null : { scheme: payment.card_scheme, last4: payment.card_last4 };
  return emailRow({
    accountId: payment.account_id,
    mode: payment.mode,
    to: payment.customer_email,
    locale: merchant.locale,
    parties: { merchant: merchant.name, customerName: payment.customer_name },
    content: { kind: 'receipt', amountCents: centsFromDb(payment.amount_cents), description: payment.description, paidAt: now, card, paymentId: payment.id },
    objectId: payment.id,
    at: now,
  });
}

/**
 * Records a decided outcome on a payment that is `processing`, with its payment.* event, in one
 * statement (paymentOutcomeStatement, atomic in or out of a transaction). Conditional on the
 * status, so a retried activity changes nothing twice: null when the payment was no longer
 * `processing`. Its time is `givenNow` when the caller read it already (as paymentNow gives it),
 * else read here.
 */
export async function recordPaymentOutcome(
  ctx: Pick<ServiceContext, 'db' | 'clock' | 'config'>,
  payment: PaymentRow,
  outcome: DecidedOutcome,
  attempt: number,
  merchant: PaymentMerchant,
  givenNow?: Date,
): Promise<PaymentRow | null> {
  const now = givenNow ?? (await paymentNow(ctx, payment));
  const [rows] = await runStatements(ctx.db, [paymentOutcomeStatement(ctx, payment, outcome, attempt, merchant, now)]);
  return changedRow<PaymentRow>(rows!) ?? null;
}

/**
 * The statement recording a decided outcome on a payment still `processing` (db/events.ts
 * changeRecordingEvent): `succeeded` with its fee (from the merchant's plan) and card, and the
 * customer's receipt; or `failed` with why. Its rows go to changedRow.
 */
export function paymentOutcomeStatement(ctx: Pick<ServiceContext, 'config'>, payment: PaymentRow, outcome: DecidedOutcome, attempt: number, merchant: PaymentMerchant, now: Date): Statement {
  let patch: Partial<PaymentRow> & Record<string, unknown>;
  if (outcome.status === 'approved') {
    const { feeCents, netCents } = paymentFee(centsFromDb(payment.amount_cents), planOf(ctx.config.plans, merchant.plan));
    patch = {
      status: 'succeeded',
      card_scheme: outcome.card.scheme,
      card_last4: outcome.card.last4,
      card_expiry_month: outcome.card.expiryMonth,
      card_expiry_year: outcome.card.expiryYear,
      card_token: outcome.card.token,
      fee_cents: feeCents,
      net_cents: netCents,
      failure_message: null,
      failure_code: null,
      succeeded_at: now,
      settled_attempt: attempt,
    };
  } else {
    patch = {
      status: 'failed',
      card_scheme: outcome.card?.scheme ?? null,
      card_last4: outcome.card?.last4 ?? null,
      failure_message: outcome.message,
      failure_code: outcome.code,
      settled_attempt: attempt,
    };
  }
  const change = updateByIdStatement('payments', payment.id, patch, " and status = 'processing' returning *");
  // The event carries the payment as the update leaves it: nothing but this changes a payment
  // while it is `processing`, so that is the row as read with the patch applied.
  const type = patch.status === 'succeeded' ? 'payment.succeeded' : 'payment.failed';
  const paid = { ...payment, ...patch } as PaymentRow;
  const event = { accountId: payment.account_id, mode: payment.mode, type, data: paymentView(paid), now } as const;
  return changeRecordingEventStatement(change.text, change.values, event, receiptOf(paid, merchant, now));
}

/** The log line of a payment's outcome, once committed, by the call that settled it (a retry logs nothing twice). */
export function logPaymentOutcome(log: Logger, payment: PaymentRow, context: Record<string, unknown>): void {
  const { id, account_id: accountId, mode, amount_cents: amount, status, failure_code: failureCode } = payment;
  log.info({ paymentId: id, ...context, accountId, mode, amountCents: centsFromDb(amount), failureCode }, `payment ${status}`);
}

/**
 * Records a settled outcome on the attempt's payment (a pending one changes nothing). A payment
 * that succeeded with the customer's consent to keep the card then has it kept (services/cards/
 * keep.ts), whichever call settled it: a call that finds it settled completes a keeping the
 * process stopped before.
 */
export async function applyAttemptOutcome(deps: ProcessorServiceDeps, checkoutId: string, attempt: number, outcome: ProcessorOutcome | Refusal): Promise<AttemptResult> {
  if (outcome.status !== 'approved' && outcome.status !== 'declined' && outcome.status !== 'refused') return 'pending';
  let updated: PaymentRow | undefined;
  const { result, payment } = await inTransaction(deps, async (ctx): Promise<{ result: AttemptResult; payment: PaymentRow }> => {
    const checkout = await findCheckout(ctx.db, checkoutId, true);
    if (!checkout) throw new Error(`checkout ${checkoutId} not found`);
    const payment = await findPayment(ctx.db, checkout.payment_id, true);
    if (payment.settled_attempt >= attempt || payment.attempts !== attempt || payment.status !== 'processing') {
      return { result: isPaid(payment.status) ? 'succeeded' : payment.status === 'failed' ? 'failed' : 'pending', payment };
    }
    // Locked above and `processing`: the outcome is recorded.
    const account = (await ctx.db('accounts').where({ id: payment.account_id }).first('plan', 'name')) as { plan: string; name: string };
    updated = (await recordPaymentOutcome(ctx, payment, outcome, attempt, { ...account, locale: checkout.locale }))!;
    if (updated.status !== 'succeeded') return { result: 'failed', payment: updated };
    await ctx.db('checkouts').where({ id: checkout.id, status: 'open' }).update({ status: 'completed', completed_at: updated.succeeded_at });
    if (updated.invoice_id !== null) await recordPagePayment(ctx, deps.log, updated);
    return { result: 'succeeded', payment: updated };
  });
  if (updated) logPaymentOutcome(deps.log, updated, { checkoutId, attempt });
  if (result === 'succeeded' && payment.card_save === 'requested') await keepCard(deps, payment.id);
  return result;
}

/** Reads the attempt's outcome from the processor (by its stable reference) and applies it. */
export async function settleAttempt(deps: ProcessorServiceDeps, checkoutId: string, attempt: number): Promise<AttemptResult> {
  const checkout = await findCheckout(deps.db, checkoutId);
  if (!checkout) throw new Error(`checkout ${checkoutId} not found`);
  const payment = await findPayment(deps.db, checkout.payment_id);
  const processor = await deps.processors.forAccount(payment.account_id, payment.mode);
  if (processor === null) return 'pending';
  const reference = processorReference(payment.id, attempt);
  const standing = () => findAccount(deps.db, payment.account_id);
  return applyAttemptOutcome(deps, checkoutId, attempt, await keepable(standing, payment, processor, reference, await processor.outcome(reference, centsFromDb(payment.amount_cents))));
}
