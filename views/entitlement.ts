// The public objects of entitlements: features, the features a product grants, a customer's active
// entitlements, and the summary entitlements.active_entitlement_summary.updated carries.
import type { ActiveEntitlementRow, FeatureRow, ProductFeatureRow } from '../db/entitlements';

export function featureView(row: FeatureRow) {
  return {
    object: 'entitlement_feature' as const,
    id: row.id,
    mode: row.mode,
    name: row.name,
    lookupKey: row.lookup_key,
    active: row.active,
    createdAt: row.created_at.toISOString(),
  };
}

export function productFeatureView(row: ProductFeatureRow) {
  return { object: 'product_feature' as const, id: row.id, productId: row.product_id, featureId: row.feature_id, lookupKey: row.lookup_key };
}

export function activeEntitlementView(row: ActiveEntitlementRow) {
  return { object: 'active_entitlement' as const, featureId: row.feature_id, lookupKey: row.lookup_key };
}

/** The event's data: the customer's lookup keys as they are now, sorted. */
export function activeEntitlementSummaryView(customerId: string, lookupKeys: readonly string[]) {
  return { customerId, lookupKeys: [...lookupKeys] };
}
