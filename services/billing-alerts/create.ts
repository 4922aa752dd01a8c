// Create a billing alert: on an active meter of this mode (else 400 meter_invalid), for one
// customer of the caller's or every customer; triggered by services/billing-alerts/trigger.ts.
import { newId } from '../../crypto/ids';
import { insertBillingAlert, type BillingAlertRow } from '../../db/billing-alerts';
import type { CustomerRow } from '../../db/customers';
import type { MeterRow } from '../../db/meters';
import { ApiError } from '../../domain/errors';
import type { AccountScope, ServiceContext } from '../context';

export interface BillingAlertInput {
  title: string;
  meterId: string;
  threshold: number;
  customerId?: string;
}

export async function createBillingAlert(ctx: ServiceContext, scope: AccountScope, input: BillingAlertInput): Promise<BillingAlertRow> {
  const meter = (await ctx.db('meters').where({ id: input.meterId }).first()) as MeterRow | undefined;
  if (meter === undefined || meter.account_id !== scope.account.id || meter.mode !== scope.mode || !meter.active) {
    throw new ApiError('meter_invalid', `No active meter of this mode has the id ${input.meterId}.`, { fields: [{ path: 'meterId', message: 'Not an active meter of this mode.' }] });
  }
  if (input.customerId !== undefined) {
    const customer = (await ctx.db('customers').where({ id: input.customerId }).first()) as CustomerRow | undefined;
    if (customer === undefined || customer.account_id !== scope.account.id || customer.mode !== scope.mode) {
      throw new ApiError('VALIDATION_FAILED', `No customer of yours in this mode has the id ${input.customerId}.`, { fields: [{ path: 'customerId', message: 'No such customer.' }] });
    }
  }
  const now = ctx.clock.now();
  const row: BillingAlertRow = {
    id: newId('billingAlert', now.getTime()),
    account_id: scope.account.id,
    mode: scope.mode,
    title: input.title,
    meter_id: meter.id,
    threshold: input.threshold,
    customer_id: input.customerId ?? null,
    active: true,
    created_at: now,
    archived_at: null,
  };
  await insertBillingAlert(ctx.db, row);
  return row;
}
