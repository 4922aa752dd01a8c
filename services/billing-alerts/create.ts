// Create a billing alert: on an active meter of this mode (else 400 meter_invalid), for one
// customer of the caller's or every customer; triggered by services/billing-alerts/trigger.ts.
import { newId } from '../../crypto/ids';
import { insertBillingAlert, type BillingAlertRow } from '../../db/billing-alerts';
import type { CustomerRow } from '../../db/customers';
import type { AccountScope, ServiceContext } from '../context';
import { activeMeter, checkCustomer } from '../meters/named';

export interface BillingAlertInput {
  title: string;
  meterId: string;
  threshold: number;
  customerId?: string;
}

export async function createBillingAlert(ctx: ServiceContext, scope: AccountScope, input: BillingAlertInput): Promise<BillingAlertRow> {
  const meter = await activeMeter(ctx, scope, input.meterId);
  if (input.customerId !== undefined) checkCustomer((await ctx.db('customers').where({ id: input.customerId }).first()) as CustomerRow | undefined, scope, input.customerId);
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
