// Collecting an invoice charged to the card on file (its collection workflow's attempts, DESIGN.md
// "Dunning"): attempt n of an open invoice is one payment, written once while the invoice is open
// with the attempt to make (payments_invoice_attempt: a retried activity or a restart finds it, and
// with it the one processor reference, so the card is never charged twice for an attempt). The
// payment is asked about and its outcome recorded as any saved-card charge's
// (services/cards/settle-charge.ts), then applied to the invoice once: paid (invoice.paid, the
// subscription running again), or declined (attemptCount, lastFailure, nextAttemptAt on the ladder,
// invoice.payment_failed and the customer emailed with the page's link; the subscription past_due,
// then unpaid). A charge once made is asked about until decided, whatever became of the invoice
// meanwhile, and one that succeeded for an invoice it did not pay (voided, or paid by another
// payment, while the bank decided) is refunded (refund-late-payment.ts); while another payment of
// the invoice is with the processor (on its page) an attempt waits for it (docs/reference/invoices.md "One
// invoice, one payment"). A renewal storm runs every step of this at once for one account, so the attempts
// asked for at one moment are taken together (chargeInvoices): their invoices read with all they
// need in one statement (db/invoice-charges.ts), their payments written in one simple query that
// holds the account's hot processing_usage row inside PostgreSQL only, the processor asked about
// all of them in one call, and the invoices paid in one transaction.
import type { Logger } from 'pino';
import { newId } from '../../crypto/ids';
import { findAccount } from '../../db/accounts';
import { recordEvent } from '../../db/events';
import { changeInvoiceRecordingEvent, chargedCard, invoiceChangeStatement, invoicesToCollect, invoiceToCollect, writeInvoiceCharges, type InvoiceChanges, type InvoiceToCollect } from '../../db/invoice-charges';
import type { PaymentRow } from '../../db/payments';
import type { InvoiceRow } from '../../db/invoices';
import { monthlyUsageCents } from '../../db/monthly-usage';
import { newChargeRow, type SavedCardRow } from '../../db/saved-cards';
import { itemsOf, lockSubscription, lockSubscriptions, updateSubscription, type SubscriptionRow } from '../../db/subscriptions';
import { collectionEnds, nextAttemptAt, statusAfterDecline, statusAfterPayment, type CollectionStep } from '../../domain/dunning';
import { amountDueSettlement } from '../../domain/invoices';
import { centsFromDb } from '../../domain/money';
import { nextSubscriptionStep, sameStep } from '../../domain/subscription-rules';
import { limitNoticesDue, planOf } from '../../domain/plans';
import { invoiceView } from '../../views/invoice';
import { subscriptionView } from '../../views/subscription';
import { noteLimitUsage } from '../account/note-limit-usage';
import type { ProcessorServiceDeps, ServiceDeps, TransactionContext } from '../context';
import { settleCharges } from '../cards/settle-charge';
import { carryOver } from './carry-over';
import { customerRecipient, emailRow, type EmailToKeep } from '../emails/keep';
import { inTransaction, writeLast } from '../run';
import { endSubscription } from '../subscriptions/end';
import { subscriptionChanged } from '../entitlements/refresh-summary';
import { applyPendingUpdate } from '../subscriptions/pending-update';
import { latePayment, refundLatePayment } from './refund-late-payment';
import { rescheduleSubscription } from '../subscriptions/reschedule';
import { nowOnClock } from '../test-clocks/billing-now';
import { leaveClocks } from '../test-clocks/step';
import { readInvoiceSummary } from './summary';

export type { CollectionStep };

export const NO_CARD_FAILURE = 'No card on file: the customer can pay on the hosted invoice page.';

/** The card an invoice is charged to: its subscription's, else the customer's default; null when neither can be charged. */
export function invoiceCard(db: ServiceDeps['db'] | TransactionContext['db'], invoice: Pick<InvoiceRow, 'customer_id' | 'subscription_id'>): Promise<SavedCardRow | null> {
  return chargedCard(db, invoice.customer_id, invoice.subscription_id);
}

/** The invoice's subscription moved to the status `next` gives, with customer.subscription.updated when it changed. */
async function moveSubscription(
  ctx: TransactionContext,
  invoice: InvoiceRow,
  next: (status: ReturnType<typeof statusAfterPayment>) => ReturnType<typeof statusAfterPayment>,
  now: Date,
  locked?: SubscriptionRow,
): Promise<void> {
  if (invoice.subscription_id === null) return;
  const subscription = locked ?? (await lockSubscription(ctx.db, invoice.subscription_id));
  const status = next(subscription.status);
  if (status === subscription.status && (status === 'incomplete') === (subscription.checkout_url !== null)) return;
  // A change's invoice paid while another invoice of the subscription is still owed (a renewal in
  // dunning) leaves it past due or unpaid: that one's payment makes it active. Read under the
  // subscription's lock, which that payment takes too, so of two paid at once the later sees the other.
  if (status === 'active' && invoice.billing_reason === 'subscription_update' && (await owedElsewhere(ctx, invoice))) return;
  // While incomplete its first invoice is paid on the invoice's page; after, nothing is awaited there.
  const checkoutUrl = status === 'incomplete' ? (subscription.checkout_url ?? invoice.hosted_url) : null;
  const moved = await updateSubscription(ctx.db, subscription.id, { status, checkout_url: checkoutUrl });
  // Its first invoice paid, an incomplete one waits for its expiry no more: its workflow told.
  if (!sameStep(nextSubscriptionStep(subscription), nextSubscriptionStep(moved))) await rescheduleSubscription(ctx, moved);
  const items = await itemsOf(ctx.db, [subscription.id]);
  await recordEvent(ctx.db, { accountId: moved.account_id, mode: moved.mode, type: 'customer.subscription.updated', data: subscriptionView(moved, items), now });
  // Paid (incomplete or unpaid to active), declined (to past_due) or at the ladder's end (unpaid).
  await subscriptionChanged(ctx, moved.customer_id, { before: subscription.status, after: moved.status }, now);
}

/** Another invoice of the invoice's subscription is open (still owed). */
async function owedElsewhere(ctx: TransactionContext, invoice: InvoiceRow): Promise<boolean> {
  return (await ctx.db('invoices').where({ subscription_id: invoice.subscription_id, status: 'open' }).whereNot('id', invoice.id).first('id')) !== undefined;
}

/** The invoice's subscription ended by its unpaid ladder (the account chose canceled): its workflow told. */
async function cancelUnpaid(ctx: TransactionContext, invoice: InvoiceRow, now: Date): Promise<void> {
  const subscription = await lockSubscription(ctx.db, invoice.subscription_id!);
  // Ended already (the last invoice of one that ended as scheduled): nothing more to end.
  if (subscription.status === 'canceled' || statusAfterDecline(subscription.status, true, 'canceled') !== 'canceled') return;
  await rescheduleSubscription(ctx, await endSubscription(ctx, subscription, now, 'payment_failed', invoice.id));
}

/**
 * The invoice (as locked by the caller's transaction) changed, with its event of `type` carrying
 * it as changed (and `email`, if given), in one statement: the event's data is made before the
 * write, from the locked row with the changes applied, which is also the row answered. `last`:
 * nothing after it in the transaction reads the invoice again, so the write may go with the COMMIT
 * (services/run.ts writeLast).
 */
async function changeInvoice(
  ctx: TransactionContext,
  invoice: InvoiceRow,
  changes: InvoiceChanges,
  type: 'invoice.paid' | 'invoice.payment_failed',
  now: Date,
  options: { email?: EmailToKeep; last?: boolean } = {},
): Promise<InvoiceRow> {
  const changed = { ...invoice, ...changes };
  const event = { accountId: invoice.account_id, mode: invoice.mode, type, data: invoiceView(changed), now };
  const email = options.email && emailRow(options.email);
  if (options.last !== true) return changeInvoiceRecordingEvent(ctx.db, invoice.id, changes, event, email);
  await writeLast(ctx, invoiceChangeStatement(invoice.id, changes, event, email));
  return changed;
}

/**
 * An open invoice paid in full (by its charge, or on its page): invoice.paid, and its subscription
 * running again. `subscription`: its row, locked by the caller already. `last`: as changeInvoice's.
 */
export async function recordInvoicePaid(
  ctx: TransactionContext,
  invoice: InvoiceRow,
  now: Date,
  changes: InvoiceChanges = {},
  options: { subscription?: SubscriptionRow; last?: boolean } = {},
): Promise<InvoiceRow> {
  const paidChanges = { ...changes, status: 'paid' as const, amount_paid_cents: invoice.amount_due_cents, paid_at: now, next_attempt_at: null };
  const paid = await changeInvoice(ctx, invoice, paidChanges, 'invoice.paid', now, { last: options.last });
  await moveSubscription(ctx, paid, statusAfterPayment, now, options.subscription);
  await applyPendingUpdate(ctx, paid, now);
  return paid;
}

/**
 * A payment on the invoice's page succeeded: the invoice is paid by it, if still open, and the
 * ladder stops (its next attempt finds it paid). One closed or paid meanwhile (the processor
 * approved in a race with the void or the other payment) has the payment refunded.
 */
export async function recordPagePayment(ctx: TransactionContext, log: Logger, payment: Pick<PaymentRow, 'id' | 'invoice_id'>): Promise<void> {
  const { invoice, clockTime } = await invoiceToCollect(ctx.db, payment.invoice_id!, null, true);
  if (invoice.status === 'open') await recordInvoicePaid(ctx, invoice, nowOnClock(ctx, clockTime), { paid_payment_id: payment.id });
  else if (latePayment(invoice, { id: payment.id, status: 'succeeded' })) await refundLatePayment(ctx, log, invoice, payment.id);
}

/** A change of the invoice's subscription waits for it (`pendingUpdate`). */
async function awaitedByChange(ctx: TransactionContext, invoice: InvoiceRow): Promise<boolean> {
  if (invoice.billing_reason !== 'subscription_update' || invoice.subscription_id === null) return false;
  return (await ctx.db('subscriptions').where({ id: invoice.subscription_id }).whereRaw("pending_update->>'invoiceId' = ?", [invoice.id]).first('id')) !== undefined;
}

/** Attempt `attempt` declined (or found no card): the ladder's next step, the event and the customer's email. */
async function recordInvoiceDecline(ctx: TransactionContext, invoice: InvoiceRow, attempt: number, failure: string, now: Date): Promise<CollectionStep> {
  const firstFailedAt = invoice.first_failed_at ?? now;
  // A subscription's first invoice has no ladder (it is paid on its page, or the subscription
  // expires), nor has one sent to the customer (a charge of it was asked for by hand), nor one a
  // change waits for (paid on its page, or dropped at its expiry).
  const onLadder = invoice.billing_reason !== 'subscription_create' && invoice.collection_method === 'charge_automatically' && !(await awaitedByChange(ctx, invoice));
  const next = onLadder ? nextAttemptAt(firstFailedAt, attempt) : null;
  const changes = { attempt_count: attempt, last_failure: failure, first_failed_at: firstFailedAt, next_attempt_at: next };
  const email: EmailToKeep = {
    accountId: invoice.account_id,
    mode: invoice.mode,
    ...(await customerRecipient(ctx, invoice.account_id, invoice.customer_id)),
    content: { kind: 'payment_failed', number: invoice.number!, amountCents: centsFromDb(invoice.amount_due_cents), nextAttemptAt: next, link: invoice.hosted_url!, summary: await readInvoiceSummary(ctx.db, invoice) },
    objectId: invoice.id,
    at: now,
  };
  const declined = await changeInvoice(ctx, invoice, changes, 'invoice.payment_failed', now, { email });
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

/** An invoice no longer open: paid (by this collection or on its page), or closed otherwise (voided, uncollectible). */
function settledStep(invoice: InvoiceRow): CollectionStep {
  return { kind: invoice.status === 'paid' ? 'paid' : 'closed' };
}

/** What the invoice as read says of attempt `attempt` when it has no charge to write: null when it has one. */
function openedBefore({ invoice, payment, card, busy }: InvoiceToCollect, attempt: number): Opened | null {
  if (invoice.status !== 'open') {
    // A charge once made is seen to its outcome whatever became of the invoice (voided while the
    // bank decided), and one that succeeded for an invoice it did not pay is refunded (applyAttempts).
    if (payment !== null && (payment.status === 'processing' || latePayment(invoice, payment))) return { kind: 'charge', paymentId: payment.id };
    return settledStep(invoice);
  }
  if (invoice.attempt_count >= attempt) return declinedAsRecorded(invoice);
  if (payment !== null) return { kind: 'charge', paymentId: payment.id };
  // One charge at a time: another (on its page) is with the processor; asked again later.
  if (busy) return { kind: 'pending' };
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
 * An open invoice owing 1 to 999 cents (finalised before carry-over was the rule, or lowered since)
 * is not charged: it is paid by carry-over at its attempt, with the invoice locked and read again.
 */
function carryInsteadOfCharge(deps: ProcessorServiceDeps, invoiceId: string, attempt: number): Promise<Opened> {
  return inTransaction(deps, async (ctx): Promise<Opened> => {
    const read = await invoiceToCollect(ctx.db, invoiceId, attempt, true);
    const before = openedBefore(read, attempt);
    if (before !== null) return before;
    await carryOver(ctx, read.invoice, nowOnClock(ctx, read.clockTime));
    return { kind: 'paid' };
  });
}

/** The payment of attempt `attempt` at the invoice as read, to the card read with it. */
export function attemptPayment(deps: Pick<ServiceDeps, 'clock'>, { invoice, card, clockTime }: InvoiceToCollect, attempt: number): PaymentRow {
  const now = nowOnClock(deps, clockTime);
  return {
    ...newChargeRow({ card: card!, id: newId('payment', now.getTime()), amountCents: centsFromDb(invoice.amount_due_cents), description: `Invoice ${invoice.number}`, reference: invoice.number, now }),
    invoice_id: invoice.id,
    invoice_attempt: attempt,
  };
}

/**
 * The attempts' payments, found or written, or what stands in each one's way: the invoices read
 * in one statement, the payments written in one simple query (db/invoice-charges.ts
 * writeInvoiceCharges), outside a transaction.
 */
async function openAttempts(deps: ProcessorServiceDeps, attempts: readonly ChargeAttempt[]): Promise<Opened[]> {
  const reads = await invoicesToCollect(deps.db, attempts);
  const opened: Opened[] = [];
  const toWrite: number[] = [];
  for (const [i, read] of reads.entries()) {
    const { attempt } = attempts[i]!;
    const before = openedBefore(read, attempt);
    if (before === null && amountDueSettlement(centsFromDb(read.invoice.amount_due_cents)) === 'carry_over') opened[i] = await carryInsteadOfCharge(deps, read.invoice.id, attempt);
    else if (before === null && read.card !== null) toWrite.push(i);
    else if (before === null) opened[i] = await declineWithoutCard(deps, read.invoice.id, attempt);
    else {
      // Written by a run the process stopped in before its outcome, and perhaps before its notices.
      if (before.kind === 'charge' && read.payment!.status === 'processing') await noteChargeUsage(deps, read.invoice, read.plan, await monthlyUsageCents(deps.db, read.invoice.account_id, read.invoice.mode, deps.clock.now()));
      opened[i] = before;
    }
  }
  if (toWrite.length === 0) return opened;
  const written = await writeInvoiceCharges(deps.db, toWrite.map((i) => ({ payment: attemptPayment(deps, reads[i]!, attempts[i]!.attempt), card: reads[i]!.card! })), deps.clock.now());
  const movedOn: number[] = [];
  const noted = new Set<string>();
  for (const [k, i] of toWrite.entries()) {
    const charge = written[k] ?? null;
    if (charge === null) {
      movedOn.push(i);
      continue;
    }
    opened[i] = { kind: 'charge', paymentId: charge.paymentId };
    // Once per account and mode: the month's use read after these charges counts them all.
    const { invoice, plan } = reads[i]!;
    const scope = `${invoice.account_id} ${invoice.mode}`;
    if (charge.usedCents !== null && !noted.has(scope)) {
      noted.add(scope);
      await noteChargeUsage(deps, invoice, plan, charge.usedCents);
    }
  }
  // The invoices moved on since they were read (paid, voided, the attempt applied, the amount due lowered): what they say now.
  if (movedOn.length > 0) (await openAttempts(deps, movedOn.map((i) => attempts[i]!))).forEach((step, k) => (opened[movedOn[k]!] = step));
  return opened;
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

/**
 * The attempts' decided payments applied to their invoices, once, in one transaction: the invoices
 * and their subscriptions locked in one statement each, and an invoice paid changed with the COMMIT.
 */
function applyAttempts(deps: ProcessorServiceDeps, attempts: readonly ChargeAttempt[]): Promise<CollectionStep[]> {
  if (attempts.length === 0) return Promise.resolve([]);
  return inTransaction(deps, async (ctx): Promise<CollectionStep[]> => {
    const reads = await invoicesToCollect(ctx.db, attempts, true);
    const subscriptionIds = reads.flatMap(({ invoice }) => (invoice.subscription_id === null ? [] : [invoice.subscription_id]));
    const locked = new Map((await lockSubscriptions(ctx.db, subscriptionIds)).map((row) => [row.id, row]));
    // A subscription's row as locked, to its first invoice here only: one applied may move it.
    const lockedRow = (id: string | null) => {
      const row = id === null ? undefined : locked.get(id);
      if (id !== null) locked.delete(id);
      return row;
    };
    const steps: CollectionStep[] = [];
    for (const [i, { invoice, payment, clockTime }] of reads.entries()) {
      const { attempt } = attempts[i]!;
      if (invoice.status !== 'open') {
        if (latePayment(invoice, payment!)) await refundLatePayment(ctx, deps.log, invoice, payment!.id);
        steps.push(settledStep(invoice));
      } else if (invoice.attempt_count >= attempt) steps.push(declinedAsRecorded(invoice));
      else if (payment!.status === 'failed' || payment!.status === 'canceled') {
        lockedRow(invoice.subscription_id);
        steps.push(await recordInvoiceDecline(ctx, invoice, attempt, payment!.failure_message ?? 'The charge was not made.', nowOnClock(ctx, clockTime)));
      } else {
        await recordInvoicePaid(ctx, invoice, nowOnClock(ctx, clockTime), { attempt_count: attempt, paid_payment_id: payment!.id }, { subscription: lockedRow(invoice.subscription_id), last: true });
        steps.push({ kind: 'paid' });
      }
    }
    return steps;
  });
}

/** An attempt at charging an invoice: 1 for the first charge, then one per retry. */
export interface ChargeAttempt {
  invoiceId: string;
  attempt: number;
  /**
   * On a test clock, the collection's workflow, which waits for nothing more there once this
   * attempt ends the collection (collectionEnds; `once`: one attempt only): its wait is taken off
   * the clock with the attempt, as leaveClock would.
   */
  leave?: { workflowId: string; once: boolean };
}

/**
 * The attempts at charging invoices made at one moment (a renewal's instant), taken together: each
 * made, asked about while the processor has not answered (`pending`: ask again), and applied once
 * decided. Safe to call again at any point. Where each stands, in order.
 */
export async function chargeInvoices(deps: ProcessorServiceDeps, attempts: readonly ChargeAttempt[]): Promise<CollectionStep[]> {
  // An invoice asked about twice at once (two attempts) has them taken one after the other: each reads what the other did.
  const seen = new Set<string>();
  const again: number[] = [];
  attempts.forEach(({ invoiceId }, i) => {
    if (seen.has(invoiceId)) again.push(i);
    else seen.add(invoiceId);
  });
  if (again.length > 0) {
    const first = attempts.flatMap((_, i) => (again.includes(i) ? [] : [i]));
    const steps: CollectionStep[] = [];
    (await chargeInvoices(deps, first.map((i) => attempts[i]!))).forEach((step, k) => (steps[first[k]!] = step));
    (await chargeInvoices(deps, again.map((i) => attempts[i]!))).forEach((step, k) => (steps[again[k]!] = step));
    return steps;
  }
  const opened = await openAttempts(deps, attempts);
  const charging = opened.flatMap((step, i) => (step.kind === 'charge' ? [{ i, paymentId: step.paymentId }] : []));
  const settled = charging.length === 0 ? [] : await settleCharges(deps, charging.map((c) => c.paymentId));
  const deciding = charging.filter((_, k) => settled[k] !== 'pending').map((c) => c.i);
  const applied = await applyAttempts(deps, deciding.map((i) => attempts[i]!));
  const steps = opened.map((step): CollectionStep => (step.kind === 'charge' ? { kind: 'pending' } : step));
  deciding.forEach((i, k) => (steps[i] = applied[k]!));
  const leaving = attempts.flatMap(({ leave }, i) => (leave !== undefined && collectionEnds(steps[i]!, leave.once) ? [leave.workflowId] : []));
  if (leaving.length > 0) await leaveClocks(deps, leaving);
  return steps;
}

/** One attempt at charging the invoice (chargeInvoices). */
export async function chargeInvoice(deps: ProcessorServiceDeps, invoiceId: string, attempt: number): Promise<CollectionStep> {
  return (await chargeInvoices(deps, [{ invoiceId, attempt }]))[0]!;
}
