// Archive a tax rate (DELETE /v1/tax_rates/{id}): `active` false, it is given to no subscription
// more; the subscriptions it taxes already go on being taxed by it. Archiving again changes nothing.
import { archiveTaxRate as markArchived, type TaxRateRow } from '../../db/tax-rates';
import type { ServiceContext } from '../context';

export function archiveTaxRate(ctx: Pick<ServiceContext, 'db' | 'clock'>, rate: TaxRateRow): Promise<TaxRateRow> {
  return markArchived(ctx.db, rate.id, ctx.clock.now());
}
