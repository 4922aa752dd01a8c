// Billing alerts (migration 029) and the alerts triggered: one row per alert, customer and period,
// so an alert is triggered once however many events cross its threshold at once.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import { sql } from './sql';

type Db = Knex | Knex.Transaction;

export interface BillingAlertRow {
  id: string;
  account_id: string;
  mode: Mode;
  title: string;
  meter_id: string;
  threshold: string | number;
  customer_id: string | null;
  active: boolean;
  created_at: Date;
  archived_at: Date | null;
}

export async function insertBillingAlert(db: Db, row: BillingAlertRow): Promise<void> {
  await db('billing_alerts').insert(row);
}

export function billingAlertsQuery(db: Db, scope: { accountId: string; mode: Mode }): Knex.QueryBuilder {
  return db<BillingAlertRow>('billing_alerts').where({ account_id: scope.accountId, mode: scope.mode });
}

export async function archiveBillingAlert(db: Db, id: string, now: Date): Promise<BillingAlertRow> {
  const [row] = (await db('billing_alerts').where({ id }).update({ active: false, archived_at: db.raw('coalesce(archived_at, ?)', [now]) }).returning('*')) as BillingAlertRow[];
  return row!;
}

/** The active alerts on `meterIds` that watch any of `customerIds` (or every customer). */
export async function activeAlertsFor(db: Db, meterIds: readonly string[], customerIds: readonly string[]): Promise<BillingAlertRow[]> {
  return sql<BillingAlertRow>(db, 'select * from billing_alerts where meter_id = any($1::text[]) and active and (customer_id is null or customer_id = any($2::text[])) order by id', [
    meterIds,
    customerIds,
  ]);
}

export interface AlertTrigger {
  alertId: string;
  customerId: string;
  periodStart: Date;
  value: number;
}

/** Keeps the triggers not kept before; those kept now (the others were triggered already). */
export async function keepAlertTriggers(db: Db, triggers: readonly AlertTrigger[], now: Date): Promise<AlertTrigger[]> {
  const rows = await sql<{ alert_id: string; customer_id: string; period_start: Date; value: string }>(
    db,
    `insert into billing_alert_triggers (alert_id, customer_id, period_start, value, created_at)
     select *, $5::timestamptz from unnest($1::text[], $2::text[], $3::timestamptz[], $4::bigint[]) order by 1, 2, 3
     on conflict do nothing returning alert_id, customer_id, period_start, value`,
    [triggers.map((t) => t.alertId), triggers.map((t) => t.customerId), triggers.map((t) => t.periodStart), triggers.map((t) => t.value), now],
  );
  return rows.map((r) => ({ alertId: r.alert_id, customerId: r.customer_id, periodStart: r.period_start, value: Number(r.value) }));
}
