// The one hook for a change of what customers may use: called, in the transaction of the change,
// wherever a subscription's status or items change (services/subscriptions/*, the dunning ladder in
// services/invoices/collect.ts: subscriptionChanged), where a product's features change, and where
// a feature is archived or brought back. It makes each customer's summary of active entitlements current and, only when
// that set of lookup keys really changed, records entitlements.active_entitlement_summary.updated.
// A renewal that changes neither status nor items does not call it (it is on the renewal storm's
// path), and a change that cannot alter the set (active to past_due) reads nothing.
import { recordEvents } from '../../db/events';
import { lockSummaries, refreshSummaries } from '../../db/entitlements';
import { activeEntitlementSummaryView } from '../../views/entitlement';
import { entitlementsMayChange } from '../../domain/entitlements';
import type { SubscriptionStatus } from '../../domain/subscription-rules';
import type { TransactionContext } from '../context';

/** `at`: the customers' time when the caller has it (a subscription's step); else each one's own. */
export async function refreshEntitlementSummaries(ctx: TransactionContext, customerIds: readonly string[], at: Date | null): Promise<void> {
  if (customerIds.length === 0) return;
  const wallNow = ctx.clock.now();
  await lockSummaries(ctx.db, customerIds, at ?? wallNow);
  const changed = await refreshSummaries(ctx.db, customerIds, at, wallNow);
  if (changed.length === 0) return;
  await recordEvents(
    ctx.db,
    changed.map((summary) => ({
      accountId: summary.account_id,
      mode: summary.mode,
      type: 'entitlements.active_entitlement_summary.updated' as const,
      data: activeEntitlementSummaryView(summary.customer_id, summary.lookup_keys),
      now: summary.at,
    })),
  );
}

/**
 * A subscription of the customer changed status (`before` null: it was made) or items, at `at`
 * (the customer's time): their summary refreshed when that may change what they may use.
 */
export async function subscriptionChanged(
  ctx: TransactionContext,
  customerId: string,
  change: { before: SubscriptionStatus | null; after: SubscriptionStatus; itemsChanged?: boolean },
  at: Date,
): Promise<void> {
  if (entitlementsMayChange(change)) await refreshEntitlementSummaries(ctx, [customerId], at);
}
