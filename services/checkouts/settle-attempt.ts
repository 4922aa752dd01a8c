// Apply a payment attempt's outcome: what the processor says of the attempt, applied once. One
// transaction of conditional updates from `processing`, so a retried activity changes nothing
// twice; the payment.* event is recorded in that transaction.
import { accountRefusal } from '../../domain/account-rules';
import { paymentFee } from '../../domain/fees';
import { centsFromDb } from '../../domain/money';
import { planOf } from '../../domain/plans';
import { findAccount } from '../../db/accounts';
import { findCheckout } from '../../db/checkouts';
import { recordEvent } from '../../db/events';
import { findPayment, processorReference, type PaymentRow } from '../../db/payments';
import type { CardProcessor, ProcessorOutcome, ReportedCard } from '../../processor/port';
import { paymentView } from '../../views/payment';
import type { ProcessorServiceDeps } from '../context';
import { inTransaction } from '../run';

export type AttemptResult = 'succeeded' | 'failed' | 'pending';

/** An approval the service refused to keep: recorded like a decline, with the service's reason. */
type Refusal = { status: 'refused'; code: string; message: string; card: ReportedCard };

/**
 * An account that may not take payments now (suspended) keeps no approval: one that arrives after
 * the suspension is released at the processor first, so no card is charged, then recorded as a
 * failure.
 */
export async function keepable(deps: ProcessorServiceDeps, payment: PaymentRow, processor: CardProcessor, reference: string, outcome: ProcessorOutcome): Promise<ProcessorOutcome | Refusal> {
  if (outcome.status !== 'approved') return outcome;
  const account = await findAccount(deps.db, payment.account_id);
  const refusal = account === null ? null : accountRefusal(account, payment.mode);
  if (refusal === null) return outcome;
  await processor.voidApproval(reference);
  return { status: 'refused', code: refusal.reason!, message: 'The merchant cannot take payments right now; the card was not charged.', card: outcome.card };
}

/** Records a settled outcome on the attempt's payment (a pending one changes nothing). */
export async function applyAttemptOutcome(deps: ProcessorServiceDeps, checkoutId: string, attempt: number, outcome: ProcessorOutcome | Refusal): Promise<AttemptResult> {
  if (outcome.status !== 'approved' && outcome.status !== 'declined' && outcome.status !== 'refused') return 'pending';
  let updated: PaymentRow | undefined;
  const result = await inTransaction(deps, async ({ db: trx, clock, config }): Promise<AttemptResult> => {
    const checkout = await findCheckout(trx, checkoutId, true);
    if (!checkout) throw new Error(`checkout ${checkoutId} not found`);
    const payment = await findPayment(trx, checkout.payment_id, true);
    if (payment.settled_attempt >= attempt || payment.attempts !== attempt || payment.status !== 'processing') {
      return payment.status === 'succeeded' ? 'succeeded' : payment.status === 'failed' ? 'failed' : 'pending';
    }
    const now = clock.now();
    if (outcome.status === 'approved') {
      const account = (await trx('accounts').where({ id: payment.account_id }).first('plan')) as { plan: string };
      const { feeCents, netCents } = paymentFee(centsFromDb(payment.amount_cents), planOf(config.plans, account.plan));
      [updated] = (await trx('payments')
        .where({ id: payment.id, status: 'processing' })
        .update({
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
        })
        .returning('*')) as PaymentRow[];
      await trx('checkouts').where({ id: checkout.id, status: 'open' }).update({ status: 'completed', completed_at: now });
      await recordEvent(trx, { accountId: payment.account_id, mode: payment.mode, type: 'payment.succeeded', data: paymentView(updated as PaymentRow), now });
      return 'succeeded';
    }
    [updated] = (await trx('payments')
      .where({ id: payment.id, status: 'processing' })
      .update({
        status: 'failed',
        card_scheme: outcome.card?.scheme ?? null,
        card_last4: outcome.card?.last4 ?? null,
        failure_message: outcome.message,
        failure_code: outcome.code,
        settled_attempt: attempt,
      })
      .returning('*')) as PaymentRow[];
    await recordEvent(trx, { accountId: payment.account_id, mode: payment.mode, type: 'payment.failed', data: paymentView(updated as PaymentRow), now });
    return 'failed';
  });
  // Once committed, and only by the attempt that settled it (a retried activity logs nothing twice).
  if (updated) {
    const { id, account_id: accountId, mode, amount_cents: amount, status, failure_code: failureCode } = updated;
    deps.log.info({ paymentId: id, checkoutId, accountId, mode, amountCents: centsFromDb(amount), attempt, failureCode }, `payment ${status}`);
  }
  return result;
}

/** Reads the attempt's outcome from the processor (by its stable reference) and applies it. */
export async function settleAttempt(deps: ProcessorServiceDeps, checkoutId: string, attempt: number): Promise<AttemptResult> {
  const checkout = await findCheckout(deps.db, checkoutId);
  if (!checkout) throw new Error(`checkout ${checkoutId} not found`);
  const payment = await findPayment(deps.db, checkout.payment_id);
  const processor = deps.processors.forMode(payment.mode);
  if (processor === null) return 'pending';
  const reference = processorReference(payment.id, attempt);
  return applyAttemptOutcome(deps, checkoutId, attempt, await keepable(deps, payment, processor, reference, await processor.outcome(reference)));
}
