// The public Tax rate object.
import type { TaxRateRow } from '../db/tax-rates';

export function taxRateView(row: TaxRateRow) {
  return {
    object: 'tax_rate' as const,
    id: row.id,
    mode: row.mode,
    displayName: row.display_name,
    percentage: Number(row.percentage),
    inclusive: row.inclusive,
    description: row.description,
    active: row.active,
    createdAt: row.created_at.toISOString(),
  };
}
