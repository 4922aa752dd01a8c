// billing.alert.triggered: after new usage, each active alert on its meter (for its customer, or
// every customer) whose threshold the customer's usage in their current period reaches, once per
// alert, customer and period (a row for each, kept with the event in one transaction).
import type { Knex } from 'knex';
import { activeAlertsFor, keepAlertTriggers, type AlertTrigger } from '../../db/billing-alerts';
import { recordEvents } from '../../db/events';
import type { MeterRow, UsageCustomer } from '../../db/meters';
import type { ServiceContext } from '../context';
import { currentUsage } from '../meters/usage';
import { nowOnClock } from '../test-clocks/billing-now';

export async function triggerAlerts(ctx: ServiceContext, given: readonly { meter: MeterRow; customer: UsageCustomer }[]): Promise<void> {
  const pairs = [...new Map(given.map((p) => [`${p.meter.id} ${p.customer.id}`, p])).values()];
  const alerts = await activeAlertsFor(ctx.db, [...new Set(pairs.map((p) => p.meter.id))], [...new Set(pairs.map((p) => p.customer.id))]);
  const watched = pairs.filter((p) => alerts.some((a) => a.meter_id === p.meter.id && (a.customer_id === null || a.customer_id === p.customer.id)));
  if (watched.length === 0) return;
  const usage = await currentUsage(ctx, watched.map((p) => ({ meterId: p.meter.id, customer: p.customer })));
  const reached: AlertTrigger[] = watched.flatMap((p, i) => {
    const { window, value } = usage[i]!;
    return alerts
      .filter((a) => a.meter_id === p.meter.id && (a.customer_id === null || a.customer_id === p.customer.id) && value >= Number(a.threshold))
      .map((a) => ({ alertId: a.id, customerId: p.customer.id, periodStart: window.start, value }));
  });
  if (reached.length === 0) return;
  const byCustomer = new Map(watched.map((p) => [p.customer.id, p.customer]));
  const meterOf = new Map(alerts.map((a) => [a.id, a.meter_id]));
  await (ctx.db as Knex).transaction(async (trx) => {
    const kept = await keepAlertTriggers(trx, reached, ctx.clock.now());
    if (kept.length === 0) return;
    const { account_id: accountId, mode } = byCustomer.get(kept[0]!.customerId)!;
    await recordEvents(
      trx,
      kept.map((t) => ({
        accountId,
        mode,
        type: 'billing.alert.triggered' as const,
        data: { alertId: t.alertId, customerId: t.customerId, meterId: meterOf.get(t.alertId)!, value: t.value, periodStart: t.periodStart.toISOString() },
        now: nowOnClock(ctx, byCustomer.get(t.customerId)!.frozen_time),
      })),
    );
  });
}
