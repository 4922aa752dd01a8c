// The tax rates a request gives a subscription (`taxRateIds`, up to 5): each an active rate of the
// caller's in this mode, else 409 tax_rate_invalid naming it (an unknown or another account's
// rate alike). Their terms, in the order given, are what the subscription keeps.
import type { TaxRateTerms } from '../../domain/invoice-arithmetic';
import { findTaxRates } from '../../db/tax-rates';
import { ApiError } from '../../domain/errors';
import type { Mode } from '../../domain/api-keys';
import type { ServiceContext } from '../context';

/** `owner`: the account and mode of the subscription they are given to. */
export async function usableTaxRates(ctx: Pick<ServiceContext, 'db'>, owner: { accountId: string; mode: Mode }, ids: readonly string[]): Promise<TaxRateTerms[]> {
  if (ids.length === 0) return [];
  const rates = await findTaxRates(ctx.db, ids);
  return ids.map((id, i) => {
    const rate = rates.get(id);
    const invalid = (why: string) => new ApiError('tax_rate_invalid', `The tax rate ${id} ${why}.`, { fields: [{ path: `taxRateIds[${i}]`, message: why }] });
    if (rate === undefined || rate.account_id !== owner.accountId) throw invalid('is not a tax rate of yours');
    if (rate.mode !== owner.mode) throw invalid(`is a ${rate.mode} tax rate: use a ${rate.mode} key, or a ${owner.mode} rate`);
    if (!rate.active) throw invalid('is archived');
    return { id: rate.id, percentage: Number(rate.percentage), inclusive: rate.inclusive };
  });
}
