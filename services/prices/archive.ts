// Archive a price (`kasi price archive <priceId>`, the dashboard later): it starts no new
// subscriptions (409 price_unavailable); those already on it renew at it. Archiving an archived
// price changes nothing.
import { archivePrice as markArchived, findPricedRow, type PricedRow } from '../../db/prices';
import { ApiError } from '../../domain/errors';
import type { ServiceContext } from '../context';

export async function archivePrice(ctx: Pick<ServiceContext, 'db' | 'clock'>, priceId: string): Promise<PricedRow> {
  const found = await findPricedRow(ctx.db, priceId);
  if (found === undefined) throw new ApiError('NOT_FOUND', `No price with id ${priceId}.`);
  if (found.active) await markArchived(ctx.db, priceId, ctx.clock.now());
  return (await findPricedRow(ctx.db, priceId))!;
}
