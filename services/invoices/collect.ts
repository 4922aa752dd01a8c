// Collecting an invoice charged to the card on file (its collection workflow's attempts, DESIGN.md
// "Dunning"): attempt n of an open invoice is one payment, written once while the invoice is open
// with the attempt to make (payments_invoice_attempt: a retried activity or a restart finds it, and
// with it the one processor reference, so the card is never charged twice for an attempt). The
// payment is asked about and its outcome recorded as any saved-card charge's
// (services/cards/settle-charge.ts), then applied to the invoice once: paid (invoice.paid, the
// subscription running again), or declined (attemptCount, lastFailure, nextAttemptAt on the ladder,
// invoice.payment_failed and the customer emailed with the page's link; the subscription past_due,
// then unpaid). A renewal storm runs every step of this at once for one account, so each reads the
// invoice with all it needs in one statement (db/invoice-charges.ts), and the payment's write holds
// the account's hot processing_usage row inside PostgreSQL only.
import { newId } from '../../crypto/ids';
import { findAccount } from '../../db/accounts';
import { recordEvent } from '../../db/events';
import { changeInvoiceRecordingEvent, chargedCard, invoiceToCollect, writeInvoiceCharge, type InvoiceChanges, type InvoiceToCollect } from '../../db/invoice-charges';
import type { InvoiceRow } from '../../db/invoices';
import { monthlyUsageCents } from '../../db/monthly-usage';
import { newChargeRow, type SavedCardRow } from '../../db/saved-cards';
import { itemsOf, lockSubscription, updateSubscription } from '../../db/subscriptions';
import { nextAttemptAt, statusAfterDecline, statusAfterPayment } from '../../domain/dunning';
import { centsFromDb } from '../../domain/money';
import { limitNoticesDue, planOf } from '../../domain/plans';
import { invoiceView } from '../../views/invoice';
import { subscriptionView } from '../../views/subscription';
import { noteLimitUsage } from '../account/note-limit-usage';
import type { ProcessorServiceDeps, ServiceDeps, TransactionContext } from '../context';
import { settleCharge } from '../cards/settle-charge';
import { customerRecipient, emailRow, type EmailToKeep } from '../emails/keep';
import { inTransaction } from '../run';
import { endSubscription } from '../subscriptions/end';
import { rescheduleSubscription } from '../subscriptions/reschedule';
import { nowOnClock } from '../test-clocks/billing-now';

/** Where an invoice's collection stands after an attempt. */
export type CollectionStep =
  | { kind: 'closed' }
  | { kind: 'pending' }
  | { kind: 'paid' }
  | { kind: 'declined'; nextAttemptAt: number | null };

export const NO_CARD_FAILURE = 'No card on file: the customer can pay on the hosted invoice page.';

/** The card an invoice is charged to: its subscription's, else the customer's default; null when neither can be charged. */
export function invoiceCard(db: ServiceDeps['db'] | TransactionContext['db'], invoice: Pick<InvoiceRow, 'customer_id' | 'subscription_id'>): Promise<SavedCardRow | null> {
  return chargedCard(db, invoice.customer_id, invoice.subscription_id);
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

/**
 * The invoice (as locked by the caller's transaction) changed, with its event of `type` carrying
 * it as changed (and `email`, if given), in one statement: the event's data is made before the
 * write, from the locked row with the changes applied.
 */
function changeInvoice(ctx: TransactionContext, invoice: InvoiceRow, changes: InvoiceChanges, type: 'invoice.paid' | 'invoice.payment_failed', now: Date, email?: EmailToKeep): Promise<InvoiceRow> {
  const event = { accountId: invoice.account_id, mode: invoice.mode, type, data: invoiceView({ ...invoice, ...changes }), now };
  return changeInvoiceRecordingEvent(ctx.db, invoice.id, changes, event, email && emailRow(email));
}

/** An open invoice paid in full (by its charge, or on its page): invoice.paid, and its subscription running again. */
export async function recordInvoicePaid(ctx: TransactionContext, invoice: InvoiceRow, now: Date, changes: InvoiceChanges = {}): Promise<InvoiceRow> {
  const paid = await changeInvoice(ctx, invoice, { ...changes, status: 'paid', amount_paid_cents: invoice.amount_due_cents, paid_at: now, next_attempt_at: null }, 'invoice.paid', now);
  await moveSubscription(ctx, paid, statusAfterPayment, now);
  return paid;
}

/**
 * A payment on the invoice's page succeeded: the invoice is paid, if still open, and the ladder
 * stops (its next attempt finds it paid). One voided meanwhile keeps the payment, for the merchant
 * to refund.
 */
export async function recordPagePayment(ctx: TransactionContext, invoiceId: string): Promise<void> {
  const { invoice, clockTime } = await invoiceToCollect(ctx.db, invoiceId, null, true);
  if (invoice.status === 'open') await recordInvoicePaid(ctx, invoice, nowOnClock(ctx, clockTime));
}

/** Attempt `attempt` declined (or found no card): the ladder's next step, the event and the customer's email. */
async function recordInvoiceDecline(ctx: TransactionContext, invoice: InvoiceRow, attempt: number, failure: string, now: Date): Promise<CollectionStep> {
  const firstFailedAt = invoice.first_failed_at ?? now;
  // A subscription's first invoice has no ladder (it is paid on its page, or the subscription
  // expires), nor has one sent to the customer (a charge of it was asked for by hand).
  const onLadder = invoice.billing_reason !== 'subscription_create' && invoice.collection_method === 'charge_automatically';
  const next = onLadder ? nextAttemptAt(firstFailedAt, attempt) : null;
  const changes = { attempt_count: attempt, last_failure: failure, first_failed_at: firstFailedAt, next_attempt_at: next };
  const declined = await changeInvoice(ctx, invoice, changes, 'invoice.payment_failed', now, {
    accountId: invoice.account_id,
    mode: invoice.mode,
    ...(await customerRecipient(ctx, invoice.account_id, invoice.customer_id)),
    content: { kind: 'payment_failed', number: invoice.number!, amountCents: centsFromDb(invoice.amount_due_cents), nextAttemptAt: next, link: invoice.hosted_url! },
    objectId: invoice.id,
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

type Opened = CollectionStep | { kind: 'charge'; paymentId: string };

/** The invoice's outcome of an attempt applied before (a retried activity): as recorded. */
function declinedAsRecorded(invoice: InvoiceRow): CollectionStep {
  return { kind: 'declined', nextAttemptAt: invoice.next_attempt_at?.getTime() ?? null };
}

/** What the invoice as read says of attempt `attempt` when it has no charge to write: null when it has one. */
function openedBefore({ invoice, payment, card }: InvoiceToCollect, attempt: number): Opened | null {
  if (invoice.status !== 'open') return { kind: 'closed' };
  if (invoice.attempt_count >= attempt) return declinedAsRecorded(invoice);
  if (payment !== null) return { kind: 'charge', paymentId: payment.id };
  // A new subscription with no card is paid on its first invoice's page (its checkoutUrl).
  if (card === null && invoice.billing_reason === 'subscription_create') return { kind: 'closed' };
  return null;
}

/** No card to charge: the attempt declined, with the invoice locked and read again. */
function declineWithoutCard(deps: ProcessorServiceDeps, invoiceId: string, attempt: number): Promise<Opened> {
  return inTransaction(deps, async (ctx): Promise<Opened> => {
    const read = await invoiceToCollect(ctx.db, invoiceId, attempt, true);
    return openedBefore(read, attempt) ?? recordInvoiceDecline(ctx, read.invoice, attempt, NO_CARD_FAILURE, nowOnClock(ctx, read.clockTime));
  });
}

/**
 * Attempt `attempt`'s payment, found or written, or what stands in its way: the invoice read in
 * one statement, the payment written in one simple query (db/invoice-charges.ts writeInvoiceCharge),
 * outside a transaction.
 */
async function openAttempt(deps: ProcessorServiceDeps, invoiceId: string, attempt: number): Promise<Opened> {
  const read = await invoiceToCollect(deps.db, invoiceId, attempt);
  const { invoice, card, plan } = read;
  const opened = openedBefore(read, attempt);
  if (opened !== null) {
    // Written by a run the process stopped in before its outcome, and perhaps before its notices.
    if (opened.kind === 'charge' && read.payment!.status === 'processing') await noteChargeUsage(deps, invoice, plan, await monthlyUsageCents(deps.db, invoice.account_id, invoice.mode, deps.clock.now()));
    return opened;
  }
  if (card === null) return declineWithoutCard(deps, invoiceId, attempt);
  const now = nowOnClock(deps, read.clockTime);
  const payment = {
    ...newChargeRow({ card, id: newId('payment', now.getTime()), amountCents: centsFromDb(invoice.amount_due_cents), description: `Invoice ${invoice.number}`, reference: invoice.number, now }),
    invoice_id: invoice.id,
    invoice_attempt: attempt,
  };
  const written = await writeInvoiceCharge(deps.db, payment, card, deps.clock.now());
  // The invoice moved on since it was read (paid, voided, the attempt applied): what it says now.
  if (written === null) return openAttempt(deps, invoiceId, attempt);
  if (written.usedCents !== null) await noteChargeUsage(deps, invoice, plan, written.usedCents);
  return { kind: 'charge', paymentId: written.paymentId };
}

/**
 * The month's limit counts an invoice's charge (the payments' trigger) and its notices go out, but
 * never refuses it: the customer agreed to it when subscribing. `usedCents` is the month's use
 * with the charge, read under the account's processing_usage row, so the charge that passes a
 * threshold sees it; the notices are written in a transaction of their own, opened only when one
 * can be due (each goes out once).
 */
async function noteChargeUsage(deps: ProcessorServiceDeps, invoice: InvoiceRow, plan: string, usedCents: number): Promise<void> {
  if (limitNoticesDue(planOf(deps.config.plans, plan), usedCents).length === 0) return;
  await inTransaction(deps, async (ctx) => noteLimitUsage(ctx, { account: (await findAccount(ctx.db, invoice.account_id))!, mode: invoice.mode }, usedCents));
}

/** The attempt's decided payment applied to its invoice, once. */
function applyAttempt(deps: ProcessorServiceDeps, invoiceId: string, attempt: number): Promise<CollectionStep> {
  return inTransaction(deps, async (ctx): Promise<CollectionStep> => {
    const { invoice, payment, clockTime } = await invoiceToCollect(ctx.db, invoiceId, attempt, true);
    if (invoice.status === 'paid') return { kind: 'paid' };
    if (invoice.status !== 'open') return { kind: 'closed' };
    if (invoice.attempt_count >= attempt) return declinedAsRecorded(invoice);
    const now = nowOnClock(ctx, clockTime);
    const { status, failure_message: failure } = payment!;
    if (status === 'failed' || status === 'canceled') return recordInvoiceDecline(ctx, invoice, attempt, failure ?? 'The charge was not made.', now);
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
  if ((await settleCharge(deps, opened.paymentId)) === 'pending') return { kind: 'pending' };
  return applyAttempt(deps, invoiceId, attempt);
}
