// The public Price object, with its product's id, name and description.
import type { PricedRow } from '../db/prices';
import { centsFromDb, CURRENCY } from '../domain/money';

export function priceView(row: PricedRow) {
  return {
    object: 'price' as const,
    id: row.id,
    mode: row.mode,
    product: { id: row.product_id, name: row.product_name, description: row.product_description },
    unitAmountCents: centsFromDb(row.unit_amount_cents),
    currency: CURRENCY,
    interval: row.interval,
    intervalCount: row.interval_count,
    nickname: row.nickname,
    active: row.active,
    billingScheme: row.billing_scheme,
    tiersMode: row.tiers_mode,
    tiers: row.tiers,
    packageSize: row.package_size,
    usageType: row.usage_type,
    meterId: row.meter_id,
    createdAt: row.created_at.toISOString(),
  };
}
