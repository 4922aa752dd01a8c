// DELETE /v1/meters/{id}: the meter counts no more events (their event name answers meter_invalid)
// and takes no new prices; prices on it bill what it counted. Its event name is free for a new meter.
import { deactivateMeter, type MeterRow } from '../../db/meters';
import type { ServiceContext } from '../context';

export function deactivate(ctx: ServiceContext, meter: MeterRow): Promise<MeterRow> {
  return deactivateMeter(ctx.db, meter.id, ctx.clock.now());
}
