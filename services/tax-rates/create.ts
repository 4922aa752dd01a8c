// Create a tax rate (POST /v1/tax_rates): a percentage of 0 to 100 with at most four decimals,
// inclusive (contained in the prices) or exclusive (added on top); the schema checks the body.
import { newId } from '../../crypto/ids';
import { insertTaxRate, type TaxRateRow } from '../../db/tax-rates';
import type { AccountScope, ServiceContext } from '../context';

export interface TaxRateInput {
  displayName: string;
  percentage: number;
  inclusive: boolean;
  description?: string;
}

export async function createTaxRate(ctx: ServiceContext, scope: AccountScope, input: TaxRateInput): Promise<TaxRateRow> {
  const now = ctx.clock.now();
  const row: TaxRateRow = {
    id: newId('taxRate', now.getTime()),
    account_id: scope.account.id,
    mode: scope.mode,
    display_name: input.displayName,
    percentage: input.percentage,
    inclusive: input.inclusive,
    description: input.description ?? null,
    active: true,
    archived_at: null,
    created_at: now,
  };
  await insertTaxRate(ctx.db, row);
  return row;
}
