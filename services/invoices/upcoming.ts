// The next renewal's invoice, as it would be made, not stored (GET /v1/invoices/upcoming and
// POST /v1/invoices/preview, which also previews a change of items): id `upcoming_<subscription
// id>`, status `draft`, number null, its lines made by the very code a renewal bills with
// (services/subscriptions/bill-period.ts), the usage of the period so far (metered items, in
// arrears), the proration lines waiting for it, the pending invoice items and the amounts carried
// over that wait for the customer's next invoice after them, and the credit balance it would use,
// so it equals the invoice cent for cent (unless another invoice of the customer takes those
// first). A trialing subscription's is the first paid period's, from the trial's end. 404 for a
// subscription that will not renew: ended, paused, or to be canceled at or before its period's
// end. invoice.upcoming carries it three days before each renewal.
import { recordEventsStatement } from '../../db/events';
import { itemsOf, updateSubscription, type PricedItem, type SubscriptionRow } from '../../db/subscriptions';
import type { StepReads } from '../subscriptions/step';
import type { InvoiceRow } from '../../db/invoices';
import { ApiError } from '../../domain/errors';
import { nextSubscriptionStep, subscriptionChangeRefusal } from '../../domain/subscription-rules';
import { nowOnClock } from '../test-clocks/billing-now';
import { customerTime, customerTimes, type CustomerTime } from '../../db/customers';
import { batchedRead } from '../owned';
import { invoiceView } from '../../views/invoice';
import type { ServiceContext, TransactionContext } from '../context';
import { nextPeriodOf, renewalLines, subscriptionDraft } from '../subscriptions/bill-period';
import { asksItemChange, prepareChange, readChange, type ChangeInput } from '../subscriptions/change';
import { pendingInvoiceItemLines } from '../invoice-items/lines';
import { pendingCarriedLines } from './carry-over';
import { arrearsLines, periodsUsageSoFar, type UsageByPrice } from '../meters/usage';
import { pendingProrations } from '../../db/pending-prorations';
import type { InvoiceLine } from '../../domain/invoices';
import { prorationDateRefusal } from '../../domain/subscription-changes';
import { pauseInForce } from '../../domain/pause-collection';
import type { ProrationUnit } from '../../domain/proration';
import { writeLast } from '../run';

/** The preview's id: the subscription's, so a merchant finds it again (the spec's form). */
export const upcomingInvoiceId = (subscriptionId: string): string => `upcoming_${subscriptionId}`;

/** Whether the subscription will renew (or, trialing, begin its paid periods): not ended, paused, or to be canceled first. */
export function willRenew(subscription: SubscriptionRow): boolean {
  const next = nextSubscriptionStep(subscription);
  return next.kind !== 'ended' && next.kind !== 'idle' && next.kind !== 'cancel' && !subscription.cancel_at_period_end;
}

/** What a caller has read already: the subscription's items, and the customer's time (what waits for their next invoice, their balance). */
export interface RenewalReads {
  items?: PricedItem[];
  customer?: CustomerTime;
  /** The usage of the period so far (read with a batch of steps: services/subscriptions/step.ts). */
  usage?: UsageByPrice;
}

export async function upcomingInvoice(ctx: Pick<ServiceContext, 'db'>, subscription: SubscriptionRow, known: RenewalReads & { items?: PricedItem[]; prorations?: InvoiceLine[] } = {}): Promise<InvoiceRow> {
  if (!willRenew(subscription)) {
    const next = nextSubscriptionStep(subscription);
    throw new ApiError('NOT_FOUND', `The subscription ${subscription.id} will not renew (${next.kind === 'idle' ? 'paused' : next.kind === 'ended' ? subscription.status : 'it is to be canceled'}): it has no upcoming invoice.`);
  }
  return renewalInvoice(ctx, subscription, known);
}

/**
 * The invoice the subscription's next period would make (from its trial's end, for a trialing
 * one), with the proration lines waiting for it; `items` and `prorations`: those of a change
 * previewed instead of the kept ones.
 */
export async function renewalInvoice(ctx: Pick<ServiceContext, 'db'>, subscription: SubscriptionRow, known: RenewalReads & { prorations?: InvoiceLine[] } = {}): Promise<InvoiceRow> {
  const trialing = subscription.status === 'trialing' && subscription.trial_end !== null;
  const start = trialing ? subscription.trial_end! : subscription.current_period_end;
  const items = known.items ?? (await itemsOf(ctx.db, [subscription.id]));
  const waiting = subscription.prorations_pending ? await pendingProrations(ctx.db, subscription.id) : [];
  const period = nextPeriodOf(trialing ? { ...subscription, billing_cycle_anchor: start } : subscription, items, start);
  const customer = known.customer ?? (await customerTime(ctx.db, subscription.customer_id));
  // The usage so far of the period that ends, billed in arrears by the renewal (none after a trial).
  const usage = trialing ? undefined : (known.usage ?? (await periodsUsageSoFar(ctx, [{ subscription, items, to: start }])).get(subscription.id));
  const arrears = trialing ? [] : arrearsLines(items, usage, { start: subscription.current_period_start, end: start });
  // When it will be made: the renewal's instant.
  const lines = [...renewalLines(subscription, items, period), ...arrears, ...waiting, ...(known.prorations ?? []), ...(await waitingLines(ctx, subscription, customer, period.start))];
  // A renewal made while collection is paused is held (kept as a draft, or closed): it uses no credit.
  const creditBalanceCents = pauseInForce(subscription, period.start) === null ? customer.credit_balance_cents : 0;
  return subscriptionDraft(subscription, { id: upcomingInvoiceId(subscription.id), reason: 'subscription_cycle', period, lines, createdAt: period.start, creditBalanceCents });
}

/**
 * The lines waiting for the customer's next invoice of the subscription, made at `at`: the pending
 * invoice items, then the amounts carried over; none while collection is paused then
 * (bill-period.ts billPeriod).
 */
async function waitingLines(ctx: Pick<ServiceContext, 'db'>, subscription: SubscriptionRow, customer: CustomerTime, at: Date): Promise<InvoiceLine[]> {
  if (pauseInForce(subscription, at) !== null) return [];
  return [
    ...(customer.has_items ? await pendingInvoiceItemLines(ctx, subscription.customer_id, subscription.id) : []),
    ...(customer.carries ? await pendingCarriedLines(ctx, subscription.customer_id) : []),
  ];
}

export interface InvoicePreviewInput extends ChangeInput {
  subscriptionId: string;
}

/**
 * POST /v1/invoices/preview: without a change, the next renewal's invoice (as upcoming); with one
 * (`items`, `priceId`, `quantity`), prepared as the update prepares it (services/subscriptions/
 * change.ts): the invoice it makes at once (`always_invoice` with something to bill, or a change of
 * interval), else the next renewal with the change applied and its proration lines (404 when the
 * subscription will not renew, as upcoming). 409
 * subscription_ended for an ended subscription; a `prorationDate` outside the current period or
 * after now, 400 billing_date_invalid.
 */
export async function previewInvoice(ctx: Pick<ServiceContext, 'db' | 'clock'>, subscription: SubscriptionRow, input: InvoicePreviewInput, unit: ProrationUnit = 'second'): Promise<InvoiceRow> {
  const refusal = subscriptionChangeRefusal(subscription.id, subscription.status, 'update');
  if (refusal !== null) throw refusal;
  // The customer's time, and whether an amount carried over waits for their next invoice, read
  // with what a change reads (at once: a preview is on the request path).
  const [customer, reads] = await Promise.all([
    batchedRead(ctx.db, 'customer times', async (db, ids) => {
      const times = await customerTimes(db, ids);
      return ids.map((id) => times.get(id)!);
    })(subscription.customer_id),
    asksItemChange(input) ? readChange(ctx.db, subscription, input) : undefined,
  ]);
  const now = nowOnClock(ctx, customer.frozen_time);
  if (!asksItemChange(input)) {
    const dateRefusal = input.prorationDate === undefined ? null : prorationDateRefusal(new Date(input.prorationDate), { start: subscription.current_period_start, end: subscription.current_period_end }, now);
    if (dateRefusal !== null) throw dateRefusal;
    return upcomingInvoice(ctx, subscription, { customer });
  }
  const { plan, after } = await prepareChange(ctx, subscription, input, { now, unit }, reads);
  // The next renewal with the change applied: none for a subscription that will not renew (404).
  if (plan.invoice === null) return upcomingInvoice(ctx, subscription, { items: after, prorations: plan.pending, customer });
  const lines = [...plan.invoice.lines, ...(await waitingLines(ctx, subscription, customer, now))];
  return subscriptionDraft(subscription, { id: upcomingInvoiceId(subscription.id), reason: 'subscription_update', period: plan.invoice.period, lines, createdAt: now, creditBalanceCents: customer.credit_balance_cents });
}

/**
 * invoice.upcoming, three days before a renewal (a step of the subscription's workflow): the
 * renewal's invoice as it will be made, once per period.
 */
export async function announceUpcomingInvoice(ctx: TransactionContext, subscription: SubscriptionRow, at: Date, { items, customer, usage }: StepReads): Promise<SubscriptionRow> {
  const noticed = await updateSubscription(ctx.db, subscription.id, { upcoming_notice_for: subscription.current_period_end });
  await writeLast(ctx, recordEventsStatement([{ accountId: noticed.account_id, mode: noticed.mode, type: 'invoice.upcoming', data: invoiceView(await upcomingInvoice(ctx, noticed, { items, customer, usage })), now: at }]));
  return noticed;
}
