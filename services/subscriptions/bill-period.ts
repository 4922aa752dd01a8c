// A period of a subscription and its invoice: the lines from the items' prices (domain/invoices.ts
// periodLines, prorated when a `cancelAt` cuts the period short), made and finalised in the
// subscription's transaction, in the customer's time. Used when a subscription starts, at each
// renewal, when a trial ends and when a paused subscription resumes, with the proration lines
// waiting from changes in the period before; the upcoming invoice's preview is made by the same
// lines (services/invoices/upcoming.ts), so it equals the invoice.
import { newId } from '../../crypto/ids';
import { customerTime, type CustomerTime } from '../../db/customers';
import type { NewEvent } from '../../db/events';
import type { InvoiceRow } from '../../db/invoices';
import { takePendingProrations } from '../../db/pending-prorations';
import { termsOf } from '../../db/prices';
import { lockSubscription, subscriptionUpdateStatement, updateSubscription, type PricedItem, type SubscriptionRow } from '../../db/subscriptions';
import type { Statement } from '../../db/sql';
import { periodFrom, type BilledPeriod, type Recurrence } from '../../domain/billing-periods';
import type { ProrationUnit } from '../../domain/proration';
import { sameDiscount, subscriptionAdjustments, type SubscriptionDiscount } from '../../domain/coupons';
import { pauseInForce } from '../../domain/pause-collection';
import { periodLines, type BilledItem, type BillingReason, type CollectionMethod, type InvoiceLine } from '../../domain/invoices';
import { subscriptionView } from '../../views/subscription';
import type { TransactionContext } from '../context';
import { takeCarriedLines } from '../invoices/carry-over';
import { takeInvoiceItemLines } from '../invoice-items/lines';
import { draftRow } from '../invoices/draft';
import { finalizeInvoice } from '../invoices/transition';
import { billWhilePaused } from './pause';

/** The items' common recurrence (every item bills on the same interval). */
export function recurrenceOf(items: readonly PricedItem[]): Recurrence {
  const [first] = items;
  return { interval: first!.price.interval, intervalCount: first!.price.interval_count };
}

/** What the items bill: each one's product, price terms and quantity. */
export function billedItems(items: readonly PricedItem[]): BilledItem[] {
  return items.map((item) => ({ priceId: item.price.id, productName: item.price.product_name, terms: termsOf(item.price), quantity: item.quantity }));
}

/** The lines the subscription's items bill for `period` (a part of one prorated in `unit`). */
export function subscriptionLines(items: readonly PricedItem[], period: BilledPeriod, unit?: ProrationUnit): InvoiceLine[] {
  return periodLines(billedItems(items), period, unit);
}

/** A new period's lines: a part period up to its anchor that waited for it first (services/subscriptions/create.ts), then the period's. */
export function renewalLines(subscription: Pick<SubscriptionRow, 'deferred_lines'>, items: readonly PricedItem[], period: BilledPeriod): InvoiceLine[] {
  return [...(subscription.deferred_lines ?? []), ...subscriptionLines(items, period)];
}

/** The period a renewal (or a trial's end) from `start` bills, for the subscription as it stands. */
export function nextPeriodOf(subscription: Pick<SubscriptionRow, 'billing_cycle_anchor' | 'cancel_at'>, items: readonly PricedItem[], start: Date): BilledPeriod {
  return periodFrom(subscription.billing_cycle_anchor, recurrenceOf(items), start, subscription.cancel_at);
}

/**
 * The period's invoice, made and finalised (invoice.created and invoice.finalized), `after` recorded
 * behind them, with the pending invoice items of the subscription (and the customer's of none) and
 * the amounts carried over that wait for the customer's next invoice as lines after `lines`; `id` given when the caller has written it before (the subscription's latest);
 * `last` when the caller writes nothing after it (services/invoices/transition.ts finalizeInvoice).
 */
export async function billPeriod(
  ctx: TransactionContext,
  subscription: SubscriptionRow,
  lines: InvoiceLine[],
  period: BilledPeriod,
  reason: BillingReason,
  now: Date,
  collection: { method: CollectionMethod; daysUntilDue: number | null } = { method: subscription.collection_method, daysUntilDue: subscription.days_until_due },
  written: { id?: string; after?: NewEvent[]; last?: boolean; customer?: CustomerTime; before?: Statement[]; discount?: SubscriptionDiscount | null } = {},
): Promise<InvoiceRow> {
  const id = written.id ?? newId('invoice', now.getTime());
  // Read here when not given (finalizeInvoice would): it says whether an amount carried over waits.
  const customer = written.customer ?? (await customerTime(ctx.db, subscription.customer_id));
  const paused = pauseInForce(subscription, now);
  // Invoice items and amounts carried over wait for an invoice that is collected, not one a pause keeps or closes.
  const items = customer.has_items && paused === null ? await takeInvoiceItemLines(ctx, subscription.customer_id, subscription.id, id) : [];
  const carried = customer.carries && paused === null ? await takeCarriedLines(ctx, subscription.customer_id, id) : [];
  const all = [...lines, ...items, ...carried];
  const draft = subscriptionDraft(subscription, { id, reason, period, lines: all, createdAt: now, collection, discount: written.discount });
  // The discount this invoice ends (a `once` used, a `repeating` run out) ends on the row too (or,
  // when the caller moved the row's on already, as it turned out with the invoice items taken).
  const { after } = subscriptionAdjustments({ discount: written.discount === undefined ? subscription.discount : written.discount, tax_rates: subscription.tax_rates }, period.start, all);
  let before = written.before;
  if (!sameDiscount(after, subscription.discount)) {
    if (written.last === true) before = [...(before ?? []), subscriptionUpdateStatement(subscription.id, { discount: after })];
    else await updateSubscription(ctx.db, subscription.id, { discount: after });
  }
  if (paused !== null) return billWhilePaused(ctx, draft, paused, { after: written.after, customer, before });
  return finalizeInvoice(ctx, draft, { fresh: true, after: written.after, last: written.last, customer, before });
}

/**
 * A draft invoice of the subscription (one to be made, or a preview, not stored: a preview shows the
 * credit balance it would use), discounted and taxed as the subscription's discount (or
 * `discount`, the one it had) and tax rates say.
 */
export function subscriptionDraft(
  subscription: SubscriptionRow,
  draft: {
    id: string;
    reason: BillingReason;
    period: BilledPeriod;
    lines: InvoiceLine[];
    createdAt: Date;
    collection?: { method: CollectionMethod; daysUntilDue: number | null };
    discount?: SubscriptionDiscount | null;
    creditBalanceCents?: number;
  },
): InvoiceRow {
  const collection = draft.collection ?? { method: subscription.collection_method, daysUntilDue: subscription.days_until_due };
  const { adjustments } = subscriptionAdjustments({ discount: draft.discount === undefined ? subscription.discount : draft.discount, tax_rates: subscription.tax_rates }, draft.period.start, draft.lines);
  return draftRow({
    id: draft.id,
    account_id: subscription.account_id,
    mode: subscription.mode,
    customer_id: subscription.customer_id,
    subscription_id: subscription.id,
    billing_reason: draft.reason,
    period_start: draft.period.start,
    period_end: draft.period.end,
    lines: draft.lines,
    collection_method: collection.method,
    days_until_due: collection.daysUntilDue,
    memo: null,
    created_at: draft.createdAt,
  }, { ...adjustments, creditBalanceCents: draft.creditBalanceCents });
}

/** How a period starts: the row's `changes`, its invoice's collection (the subscription's by default), and the customer's time when read already. */
export interface PeriodStart {
  changes?: Partial<SubscriptionRow>;
  collection?: { method: CollectionMethod; daysUntilDue: number | null };
  /** The caller writes nothing after (services/invoices/transition.ts finalizeInvoice). */
  last?: boolean;
  customer?: CustomerTime;
  /** The usage lines of the period that ends, billed in arrears after the new period's own. */
  arrears?: InvoiceLine[];
}

/**
 * The subscription moves into `period` (a renewal, a trial's end, a resume): the row updated with
 * `changes`, and its invoice made and finalised with customer.subscription.updated behind its events.
 */
export async function startPeriod(ctx: TransactionContext, subscription: SubscriptionRow, items: PricedItem[], period: BilledPeriod, now: Date, start: PeriodStart = {}): Promise<SubscriptionRow> {
  // The subscription's new state first, so the invoice's payment (one owing nothing is paid at
  // once) moves it on from there; the invoice last, as its number is taken with it. With nothing
  // after them (a renewal; the caller holds the row locked, so the update leaves it as merged
  // here) the update is written with the invoice, at the COMMIT when the invoice goes there.
  const invoiceId = newId('invoice', now.getTime());
  // A part period that waited for the first renewal invoice goes onto it, once; so do the proration
  // lines of the changes made in the period before, after its own.
  const prorations = subscription.prorations_pending ? await takePendingProrations(ctx.db, subscription.id, invoiceId) : [];
  const lines = [...renewalLines(subscription, items, period), ...(start.arrears ?? []), ...prorations];
  // The discount after this invoice (ended by it, or not), written with the period's other changes
  // (billPeriod corrects it in the rare case the invoice items it takes change that).
  const { after } = subscriptionAdjustments(subscription, period.start, lines);
  const changes = {
    ...start.changes,
    current_period_start: period.start,
    current_period_end: period.end,
    latest_invoice_id: invoiceId,
    ...(subscription.deferred_lines === null ? {} : { deferred_lines: null }),
    ...(subscription.prorations_pending ? { prorations_pending: false } : {}),
    ...(sameDiscount(after, subscription.discount) ? {} : { discount: after }),
  };
  const moved = start.last === true ? { ...subscription, ...changes } : await updateSubscription(ctx.db, subscription.id, changes);
  const before = start.last === true ? [subscriptionUpdateStatement(subscription.id, changes)] : [];
  const updated = { accountId: moved.account_id, mode: moved.mode, type: 'customer.subscription.updated' as const, data: subscriptionView(moved, items), now };
  const invoice = await billPeriod(ctx, moved, lines, period, 'subscription_cycle', now, start.collection, { id: invoiceId, after: [updated], last: start.last, customer: start.customer, before, discount: subscription.discount });
  // Paid at once, it may have moved the subscription on.
  return invoice.status === 'paid' ? lockSubscription(ctx.db, subscription.id) : moved;
}
