// The public Subscription object (API answers and customer.subscription.* event payloads).
import type { PricedItem, SubscriptionRow } from '../db/subscriptions';
import { centsFromDb } from '../domain/money';
import { timestamp } from '../domain/time';

function priceSummary(item: PricedItem) {
  return {
    id: item.price.id,
    productName: item.price.product_name,
    unitAmountCents: centsFromDb(item.price.unit_amount_cents),
    interval: item.price.interval,
    intervalCount: item.price.interval_count,
  };
}

export function subscriptionView(row: SubscriptionRow, items: PricedItem[]) {
  const [first] = items;
  return {
    object: 'subscription' as const,
    id: row.id,
    mode: row.mode,
    status: row.status,
    customerId: row.customer_id,
    price: first ? priceSummary(first) : null,
    quantity: first?.quantity ?? null,
    items: items.map((item) => ({ id: item.id, price: priceSummary(item), quantity: item.quantity })),
    currentPeriodStart: row.current_period_start.toISOString(),
    currentPeriodEnd: row.current_period_end.toISOString(),
    billingCycleAnchor: row.billing_cycle_anchor.toISOString(),
    cancelAtPeriodEnd: row.cancel_at_period_end,
    cancelAt: timestamp(row.cancel_at),
    canceledAt: timestamp(row.canceled_at),
    endedAt: timestamp(row.ended_at),
    cancelReason: row.cancel_reason,
    cancellationDetails: row.cancellation_details,
    trialStart: timestamp(row.trial_start),
    trialEnd: timestamp(row.trial_end),
    trialEndBehavior: row.trial_end_behavior,
    pauseCollection: row.pause_behavior === null ? null : { behavior: row.pause_behavior, resumesAt: timestamp(row.pause_resumes_at) },
    discount: row.discount === null ? null : { couponId: row.discount.couponId, start: row.discount.start, end: row.discount.end },
    taxRateIds: row.tax_rates.map((rate) => rate.id),
    subscriptionLinkId: null,
    collectionMethod: row.collection_method,
    daysUntilDue: row.days_until_due,
    pendingUpdate: row.pending_update === null ? null : { items: row.pending_update.items, expiresAt: row.pending_update.expiresAt },
    cardId: row.card_id,
    cardMissingSince: timestamp(row.card_missing_since),
    latestInvoiceId: row.latest_invoice_id,
    checkoutUrl: row.checkout_url,
    reference: row.reference,
    createdAt: row.created_at.toISOString(),
  };
}
