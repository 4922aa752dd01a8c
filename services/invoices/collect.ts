// Collecting an invoice charged to the card on file (its collection workflow's attempts, DESIGN.md
// "Dunning"): attempt n of an open invoice is one payment, written once with the invoice locked
// (payments_invoice_attempt: a retried activity or a restart finds it, and with it the one
// processor reference, so the card is never charged twice for an attempt). The payment is asked
// about and its outcome recorded as any saved-card charge's (services/cards/settle-charge.ts),
// then applied to the invoice once: paid (invoice.paid, the subscription running again), or
// declined (attemptCount, lastFailure, nextAttemptAt on the ladder, invoice.payment_failed and the
// customer emailed with the page's link; the subscription past_due, then unpaid).
import { newId } from '../../crypto/ids';
import { findAccount } from '../../db/accounts';
import { recordEvent } from '../../db/events';
import { monthlyUsageCents } from '../../db/monthly-usage';
import { noteLimitUsage } from '../account/note-limit-usage';
import { findPayment, type PaymentRow } from '../../db/payments';
import { lockInvoice, updateInvoice, type InvoiceRow } from '../../db/invoices';
import { newChargeRow, type SavedCardRow } from '../../db/saved-cards';
import { itemsOf, lockSubscription, updateSubscription } from '../../db/subscriptions';
import { nextAttemptAt, statusAfterDecline, statusAfterPayment } from '../../domain/dunning';
import { centsFromDb } from '../../domain/money';
import { invoiceView } from '../../views/invoice';
import { subscriptionView } from '../../views/subscription';
import type { ProcessorServiceDeps, ServiceDeps, TransactionContext } from '../context';
import { settleCharge } from '../cards/settle-charge';
import { customerRecipient, keepEmail } from '../emails/keep';
import { inTransaction } from '../run';
import { endSubscription } from '../subscriptions/end';
import { rescheduleSubscription } from '../subscriptions/reschedule';
import { billingNowOf } from '../test-clocks/billing-now';

/** Where an invoice's collection stands after an attempt. */
export type CollectionStep =
  | { kind: 'closed' }
  | { kind: 'pending' }
  | { kind: 'paid' }
  | { kind: 'declined'; nextAttemptAt: number | null };

export const NO_CARD_FAILURE = 'No card on file: the customer can pay on the hosted invoice page.';

/** The card an invoice is charged to: its subscription's, else the customer's default; null when neither can be charged. */
export async function invoiceCard(db: ServiceDeps['db'] | TransactionContext['db'], invoice: Pick<InvoiceRow, 'customer_id' | 'subscription_id'>): Promise<SavedCardRow | null> {
  const row = (await db('customers as cu')
    .leftJoin('subscriptions as s', 's.id', db.raw('?', [invoice.subscription_id]))
    .join('saved_cards as c', 'c.id', db.raw('coalesce(s.card_id, cu.default_card_id)'))
    .where('cu.id', invoice.customer_id)
    .first('c.*')) as SavedCardRow | undefined;
  return row === undefined || row.retired_at !== null || row.processor_token === null ? null : row;
}

/** The invoice's subscription moved to the status `next` gives, with customer.subscription.updated when it changed. */
async function moveSubscription(ctx: TransactionContext, invoice: InvoiceRow, next: (status: ReturnType<typeof statusAfterPayment>) => ReturnType<typeof statusAfterPayment>, now: Date): Promise<void> {
  if (invoice.subscription_id === null) return;
  const subscription = await lockSubscription(ctx.db, invoice.subscription_id);
  const status = next(subscription.status);
  if (status === subscription.status && (status === 'incomplete') === (subscription.checkout_url !== null)) return;
  // While incomplete its first invoice is paid on the invoice's page; after, nothing is awaited there.
  const checkoutUrl = status === 'incomplete' ? (subscription.checkout_url ?? invoice.hosted_url) : null;
  const moved = await updateSubscription(ctx.db, subscription.id, { status, checkout_url: checkoutUrl });
  const items = await itemsOf(ctx.db, [subscription.id]);
  await recordEvent(ctx.db, { accountId: moved.account_id, mode: moved.mode, type: 'customer.subscription.updated', data: subscriptionView(moved, items), now });
}

/** The invoice's subscription ended by its unpaid ladder (the account chose canceled): its workflow told. */
async function cancelUnpaid(ctx: TransactionContext, invoice: InvoiceRow, now: Date): Promise<void> {
  const subscription = await lockSubscription(ctx.db, invoice.subscription_id!);
  if (statusAfterDecline(subscription.status, true, 'canceled') !== 'canceled') return;
  await rescheduleSubscription(ctx, await endSubscription(ctx, subscription, now, 'payment_failed', invoice.id));
}

/** An open invoice paid in full (by its charge, or on its page): invoice.paid, and its subscription running again. */
export async function recordInvoicePaid(ctx: TransactionContext, invoice: InvoiceRow, now: Date, changes: Partial<InvoiceRow> = {}): Promise<InvoiceRow> {
  const paid = await updateInvoice(ctx.db, invoice.id, { ...changes, status: 'paid', amount_paid_cents: invoice.amount_due_cents, paid_at: now, next_attempt_at: null });
  await recordEvent(ctx.db, { accountId: paid.account_id, mode: paid.mode, type: 'invoice.paid', data: invoiceView(paid), now });
  await moveSubscription(ctx, paid, statusAfterPayment, now);
  return paid;
}

/**
 * A payment on the invoice's page succeeded: the invoice is paid, if still open, and the ladder
 * stops (its next attempt finds it paid). One voided meanwhile keeps the payment, for the merchant
 * to refund.
 */
export async function recordPagePayment(ctx: TransactionContext, invoiceId: string): Promise<void> {
  const invoice = await lockInvoice(ctx.db, invoiceId);
  if (invoice.status === 'open') await recordInvoicePaid(ctx, invoice, await billingNowOf(ctx, invoice.customer_id));
}

/** Attempt `attempt` declined (or found no card): the ladder's next step, the event and the customer's email. */
async function recordInvoiceDecline(ctx: TransactionContext, invoice: InvoiceRow, attempt: number, failure: string, now: Date): Promise<CollectionStep> {
  const firstFailedAt = invoice.first_failed_at ?? now;
  // A subscription's first invoice has no ladder (it is paid on its page, or the subscription
  // expires), nor has one sent to the customer (a charge of it was asked for by hand).
  const onLadder = invoice.billing_reason !== 'subscription_create' && invoice.collection_method === 'charge_automatically';
  const next = onLadder ? nextAttemptAt(firstFailedAt, attempt) : null;
  const declined = await updateInvoice(ctx.db, invoice.id, { attempt_count: attempt, last_failure: failure, first_failed_at: firstFailedAt, next_attempt_at: next });
  await recordEvent(ctx.db, { accountId: declined.account_id, mode: declined.mode, type: 'invoice.payment_failed', data: invoiceView(declined), now });
  await keepEmail(ctx, {
    accountId: declined.account_id,
    mode: declined.mode,
    ...(await customerRecipient(ctx, declined.account_id, declined.customer_id)),
    content: { kind: 'payment_failed', number: declined.number!, amountCents: centsFromDb(declined.amount_due_cents), nextAttemptAt: next, link: declined.hosted_url! },
    objectId: declined.id,
    at: now,
  });
  if (onLadder) {
    // At the ladder's end, the account's choice: unpaid, or canceled (the invoice left open to be paid on its page).
    const end = next === null ? (await findAccount(ctx.db, declined.account_id))!.dunningEnd : 'unpaid';
    if (end === 'canceled' && declined.subscription_id !== null) await cancelUnpaid(ctx, declined, now);
    else await moveSubscription(ctx, declined, (status) => statusAfterDecline(status, next === null, end), now);
  }
  return { kind: 'declined', nextAttemptAt: next?.getTime() ?? null };
}

type Opened = CollectionStep | { kind: 'charge'; payment: PaymentRow };

/** Attempt `attempt`'s payment, found or written, or what stands in its way. */
function openAttempt(deps: ProcessorServiceDeps, invoiceId: string, attempt: number): Promise<Opened> {
  return inTransaction(deps, async (ctx): Promise<Opened> => {
    const invoice = await lockInvoice(ctx.db, invoiceId);
    if (invoice.status !== 'open') return { kind: 'closed' };
    // Applied already (a retried activity): its outcome as recorded.
    if (invoice.attempt_count >= attempt) return { kind: 'declined', nextAttemptAt: invoice.next_attempt_at?.getTime() ?? null };
    const made = (await ctx.db('payments').where({ invoice_id: invoiceId, invoice_attempt: attempt }).first()) as PaymentRow | undefined;
    if (made !== undefined) return { kind: 'charge', payment: made };
    const now = await billingNowOf(ctx, invoice.customer_id);
    const card = await invoiceCard(ctx.db, invoice);
    // A new subscription with no card is paid on its first invoice's page (its checkoutUrl).
    if (card === null && invoice.billing_reason === 'subscription_create') return { kind: 'closed' };
    if (card === null) return recordInvoiceDecline(ctx, invoice, attempt, NO_CARD_FAILURE, now);
    const payment: PaymentRow = {
      ...newChargeRow({ card, id: newId('payment', now.getTime()), amountCents: centsFromDb(invoice.amount_due_cents), description: `Invoice ${invoice.number}`, reference: invoice.number, now }),
      invoice_id: invoice.id,
      invoice_attempt: attempt,
    };
    const { order, ...columns } = payment;
    await ctx.db('payments').insert({ ...columns, order: order === null ? null : JSON.stringify(order), card_expiry_month: card.expiry_month, card_expiry_year: card.expiry_year, card_token: card.processor_token });
    // The month's limit counts the charge (the payments' trigger) and its notices go out, but never
    // refuses it: the customer agreed to it when subscribing.
    const account = (await findAccount(ctx.db, invoice.account_id))!;
    await noteLimitUsage(ctx, { account, mode: invoice.mode }, await monthlyUsageCents(ctx.db, invoice.account_id, invoice.mode, ctx.clock.now()));
    return { kind: 'charge', payment };
  });
}

/** The attempt's decided payment applied to its invoice, once. */
function applyAttempt(deps: ProcessorServiceDeps, invoiceId: string, paymentId: string, attempt: number): Promise<CollectionStep> {
  return inTransaction(deps, async (ctx): Promise<CollectionStep> => {
    const invoice = await lockInvoice(ctx.db, invoiceId);
    if (invoice.status === 'paid') return { kind: 'paid' };
    if (invoice.status !== 'open') return { kind: 'closed' };
    if (invoice.attempt_count >= attempt) return { kind: 'declined', nextAttemptAt: invoice.next_attempt_at?.getTime() ?? null };
    const payment = await findPayment(ctx.db, paymentId);
    const now = await billingNowOf(ctx, invoice.customer_id);
    if (payment.status === 'failed' || payment.status === 'canceled') return recordInvoiceDecline(ctx, invoice, attempt, payment.failure_message ?? 'The charge was not made.', now);
    await recordInvoicePaid(ctx, invoice, now, { attempt_count: attempt });
    return { kind: 'paid' };
  });
}

/**
 * Attempt `attempt` at charging the invoice (1 for the first charge, then one per retry): made,
 * asked about while the processor has not answered (`pending`: ask again), and applied once
 * decided. Safe to call again at any point.
 */
export async function chargeInvoice(deps: ProcessorServiceDeps, invoiceId: string, attempt: number): Promise<CollectionStep> {
  const opened = await openAttempt(deps, invoiceId, attempt);
  if (opened.kind !== 'charge') return opened;
  if ((await settleCharge(deps, opened.payment.id)) === 'pending') return { kind: 'pending' };
  return applyAttempt(deps, invoiceId, opened.payment.id, attempt);
}
