// Create a meter: an event name counted per customer by sum, count or last; 409 meter_exists when
// an active meter of this mode counts that event name already.
import { newId } from '../../crypto/ids';
import { insertMeter, type MeterRow } from '../../db/meters';
import { ApiError } from '../../domain/errors';
import type { Aggregation } from '../../domain/usage';
import type { AccountScope, ServiceContext } from '../context';

export interface MeterInput {
  displayName: string;
  eventName: string;
  aggregation: Aggregation;
}

export async function createMeter(ctx: ServiceContext, scope: AccountScope, input: MeterInput): Promise<MeterRow> {
  const now = ctx.clock.now();
  const row: MeterRow = {
    id: newId('meter', now.getTime()),
    account_id: scope.account.id,
    mode: scope.mode,
    display_name: input.displayName,
    event_name: input.eventName,
    aggregation: input.aggregation,
    active: true,
    created_at: now,
    deactivated_at: null,
  };
  if (!(await insertMeter(ctx.db, row))) {
    throw new ApiError('meter_exists', `An active meter of this mode counts ${input.eventName} already: send its events there, or deactivate it first.`, { fields: [{ path: 'eventName', message: 'Counted by another active meter.' }] });
  }
  return row;
}
