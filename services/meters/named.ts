// Ids of meters and customers inside a body or query (a price's or alert's meterId, a summary's or
// alert's customerId): another account's, or one of the other mode, is answered as none (DESIGN.md,
// "Ids inside a body"), as 400s naming the field.
import type { MeterRow } from '../../db/meters';
import type { Mode } from '../../domain/api-keys';
import { ApiError } from '../../domain/errors';
import type { AccountScope, ServiceContext } from '../context';

const ours = (row: { account_id: string; mode: Mode } | undefined, scope: AccountScope) => row !== undefined && row.account_id === scope.account.id && row.mode === scope.mode;

/** The active meter of the caller's mode with that id, else 400 meter_invalid. */
export async function activeMeter(ctx: Pick<ServiceContext, 'db'>, scope: AccountScope, meterId: string): Promise<MeterRow> {
  const meter = (await ctx.db('meters').where({ id: meterId }).first()) as MeterRow | undefined;
  if (!ours(meter, scope) || !meter!.active) throw new ApiError('meter_invalid', `No active meter of this mode has the id ${meterId}.`, { fields: [{ path: 'meterId', message: 'Not an active meter of this mode.' }] });
  return meter!;
}

/** Refuses (400, the field `customerId`) a customer row not the caller's in its mode. */
export function checkCustomer<Row extends { account_id: string; mode: Mode }>(customer: Row | undefined, scope: AccountScope, customerId: string): asserts customer is Row {
  if (!ours(customer, scope)) throw new ApiError('VALIDATION_FAILED', `No customer of yours in this mode has the id ${customerId}.`, { fields: [{ path: 'customerId', message: 'No such customer.' }] });
}
