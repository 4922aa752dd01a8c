// A period of a subscription and its invoice: the lines from the items' prices (domain/invoices.ts
// periodLines, prorated when a `cancelAt` cuts the period short), made and finalised in the
// subscription's transaction, in the customer's time. Used when a subscription starts, at each
// renewal, when a trial ends and when a paused subscription resumes; the upcoming invoice's
// preview is made by the same lines (services/invoices/upcoming.ts), so it equals the invoice.
import { newId } from '../../crypto/ids';
import { recordEvent } from '../../db/events';
import type { InvoiceRow } from '../../db/invoices';
import { termsOf } from '../../db/prices';
import { updateSubscription, type PricedItem, type SubscriptionRow } from '../../db/subscriptions';
import { periodFrom, type BilledPeriod, type Recurrence } from '../../domain/billing-periods';
import { periodLines, type BilledItem, type BillingReason, type CollectionMethod, type InvoiceLine } from '../../domain/invoices';
import { subscriptionView } from '../../views/subscription';
import type { TransactionContext } from '../context';
import { writeDraftInvoice } from '../invoices/draft';
import { transitionInvoice } from '../invoices/transition';

/** The items' common recurrence (every item bills on the same interval). */
export function recurrenceOf(items: readonly PricedItem[]): Recurrence {
  const [first] = items;
  return { interval: first!.price.interval, intervalCount: first!.price.interval_count };
}

/** What the items bill: each one's product, price terms and quantity. */
export function billedItems(items: readonly PricedItem[]): BilledItem[] {
  return items.map((item) => ({ productName: item.price.product_name, terms: termsOf(item.price), quantity: item.quantity }));
}

/** The lines the subscription's items bill for `period`. */
export function subscriptionLines(items: readonly PricedItem[], period: BilledPeriod): InvoiceLine[] {
  return periodLines(billedItems(items), period);
}

/** The period a renewal (or a trial's end) from `start` bills, for the subscription as it stands. */
export function nextPeriodOf(subscription: Pick<SubscriptionRow, 'billing_cycle_anchor' | 'cancel_at'>, items: readonly PricedItem[], start: Date): BilledPeriod {
  return periodFrom(subscription.billing_cycle_anchor, recurrenceOf(items), start, subscription.cancel_at);
}

export async function billPeriod(
  ctx: TransactionContext,
  subscription: SubscriptionRow,
  lines: InvoiceLine[],
  period: BilledPeriod,
  reason: BillingReason,
  now: Date,
  collection: { method: CollectionMethod; daysUntilDue: number | null } = { method: subscription.collection_method, daysUntilDue: subscription.days_until_due },
): Promise<InvoiceRow> {
  const draft = await writeDraftInvoice(ctx, {
    id: newId('invoice', now.getTime()),
    account_id: subscription.account_id,
    mode: subscription.mode,
    customer_id: subscription.customer_id,
    subscription_id: subscription.id,
    billing_reason: reason,
    period_start: period.start,
    period_end: period.end,
    lines,
    collection_method: collection.method,
    days_until_due: collection.daysUntilDue,
    memo: null,
    created_at: now,
  });
  return transitionInvoice(ctx, draft.id, 'finalize');
}

/**
 * The subscription moves into `period` (a renewal, a trial's end, a resume): its invoice made and
 * finalised, the row updated with `changes`, and customer.subscription.updated.
 */
export async function startPeriod(
  ctx: TransactionContext,
  subscription: SubscriptionRow,
  items: PricedItem[],
  period: BilledPeriod,
  now: Date,
  changes: Partial<SubscriptionRow> = {},
  collection?: { method: CollectionMethod; daysUntilDue: number | null },
): Promise<SubscriptionRow> {
  // The subscription's new state first, so the invoice's payment (one owing nothing is paid at once) moves it on from there.
  await updateSubscription(ctx.db, subscription.id, { ...changes, current_period_start: period.start, current_period_end: period.end });
  const invoice = await billPeriod(ctx, { ...subscription, ...changes }, subscriptionLines(items, period), period, 'subscription_cycle', now, collection);
  const moved = await updateSubscription(ctx.db, subscription.id, { latest_invoice_id: invoice.id });
  await recordEvent(ctx.db, { accountId: moved.account_id, mode: moved.mode, type: 'customer.subscription.updated', data: subscriptionView(moved, items), now });
  return moved;
}
