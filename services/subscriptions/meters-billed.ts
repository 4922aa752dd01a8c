// One subscription of a customer bills a meter's usage (DESIGN.md "Metered prices"): the usage not
// invoiced yet goes onto that subscription's next invoice, so a second one billing the same meter
// would show it in its preview and bill none of it. A subscription made or changed to bill a
// meter that another of the customer's running subscriptions bills is refused (400 items_invalid).
import { meterBilledBy } from '../../db/meters';
import type { PricedRow } from '../../db/prices';
import { ApiError } from '../../domain/errors';
import type { Mode } from '../../domain/api-keys';
import type { ServiceContext } from '../context';

export async function checkMetersFree(
  ctx: Pick<ServiceContext, 'db'>,
  subscription: { accountId: string; mode: Mode; customerId: string; id: string | null },
  prices: readonly Pick<PricedRow, 'meter_id'>[],
  path: string,
): Promise<void> {
  const meterIds = [...new Set(prices.flatMap((price) => (price.meter_id === null ? [] : [price.meter_id])))];
  if (meterIds.length === 0) return;
  const other = await meterBilledBy(ctx.db, subscription, meterIds, subscription.id);
  if (other === undefined) return;
  const message = `The customer's subscription ${other.subscription_id} bills the meter ${other.meter_id} already: one subscription of a customer bills a meter's usage.`;
  throw new ApiError('items_invalid', message, { fields: [{ path, message }] });
}
