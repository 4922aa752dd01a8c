// Meters, the meter events sent to them and their usage kept per bucket (migration 029). Events
// and their buckets are written in one statement (values as array parameters); invoicing and
// summaries read buckets, never events.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import { aggregatedValue, type Aggregation, type MeteredPeriod } from '../domain/usage';
import { sql } from './sql';

type Db = Knex | Knex.Transaction;

export interface MeterRow {
  id: string;
  account_id: string;
  mode: Mode;
  display_name: string;
  event_name: string;
  aggregation: Aggregation;
  active: boolean;
  created_at: Date;
  deactivated_at: Date | null;
}

/** Inserts the meter; false when an active meter of its mode already counts its event name (also under races). */
export async function insertMeter(db: Db, row: MeterRow): Promise<boolean> {
  const made = await sql(
    db,
    `insert into meters (id, account_id, mode, display_name, event_name, aggregation, active, created_at)
     values ($1, $2, $3, $4, $5, $6, true, $7)
     on conflict (account_id, mode, event_name) where active do nothing returning id`,
    [row.id, row.account_id, row.mode, row.display_name, row.event_name, row.aggregation, row.created_at],
  );
  return made.length === 1;
}

export function metersQuery(db: Db, scope: { accountId: string; mode: Mode }): Knex.QueryBuilder {
  return db<MeterRow>('meters').where({ account_id: scope.accountId, mode: scope.mode });
}

export async function deactivateMeter(db: Db, id: string, now: Date): Promise<MeterRow> {
  const [row] = (await db('meters').where({ id }).update({ active: false, deactivated_at: db.raw('coalesce(deactivated_at, ?)', [now]) }).returning('*')) as MeterRow[];
  return row!;
}

/** The active meters of the scope counting `eventNames`, with whether an active billing alert watches each. */
export async function activeMetersFor(db: Db, scope: { accountId: string; mode: Mode }, eventNames: readonly string[]): Promise<(MeterRow & { alerted: boolean })[]> {
  return sql<MeterRow & { alerted: boolean }>(
    db,
    `select m.*, exists (select 1 from billing_alerts a where a.meter_id = m.id and a.active) as alerted
     from meters m where m.account_id = $1 and m.mode = $2 and m.event_name = any($3::text[]) and m.active`,
    [scope.accountId, scope.mode, eventNames],
  );
}

/** What usage needs of a customer: whose and which mode, their time (a test clock's), and the periods of their subscriptions that bill a meter. */
export interface UsageCustomer {
  id: string;
  account_id: string;
  mode: Mode;
  frozen_time: Date | null;
  periods: MeteredPeriod[];
}

const USAGE_CUSTOMERS_SQL = `select c.id, c.account_id, c.mode, t.frozen_time,
    coalesce((select json_agg(json_build_object('meterId', p.meter_id, 'start', s.current_period_start, 'end', s.current_period_end, 'from', coalesce(s.trial_end, s.created_at)))
      from subscriptions s join subscription_items i on i.subscription_id = s.id join prices p on p.id = i.price_id
      where s.customer_id = c.id and p.meter_id is not null and s.status not in ('canceled', 'incomplete_expired')), '[]') as periods
  from customers c left join test_clocks t on t.id = c.test_clock_id where c.id = any($1::text[])`;

export async function usageCustomers(db: Db, ids: readonly string[]): Promise<Map<string, UsageCustomer>> {
  type Json = { meterId: string; start: string; end: string; from: string };
  const rows = await sql<Omit<UsageCustomer, 'periods'> & { periods: Json[] }>(db, USAGE_CUSTOMERS_SQL, [ids]);
  return new Map(
    rows.map((row) => [row.id, { ...row, periods: row.periods.map((p) => ({ meterId: p.meterId, start: new Date(p.start), end: new Date(p.end), from: new Date(p.from) })) }]),
  );
}

/** An event to record, checked: its meter, and the bucket its usage goes to (domain/usage.ts bucketStart). */
export interface CheckedEvent {
  identifier: string;
  meterId: string;
  eventName: string;
  customerId: string;
  value: number;
  timestamp: Date;
  bucketStart: Date;
}

// The events not seen before (an identifier already kept, or twice in the batch, adds nothing),
// then their usage added to the open buckets, ordered so concurrent batches lock buckets in one
// order; a bucket being invoiced meanwhile is closed, so the insert makes a new open one.
const RECORD_EVENTS_SQL = `with sent as (
    select * from unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::timestamptz[], $9::timestamptz[]) with ordinality
      as e(identifier, meter_id, event_name, customer_id, value, ts, bucket_start, n)
  ), kept as (
    insert into meter_events (account_id, mode, identifier, meter_id, event_name, customer_id, value, timestamp, bucket_start, created_at)
    select $1, $2, identifier, meter_id, event_name, customer_id, value, ts, bucket_start, $10 from sent order by n
    on conflict do nothing
    returning identifier, meter_id, customer_id, bucket_start, value, timestamp, seq
  ), buckets as (
    select meter_id, customer_id, bucket_start, sum(value) as value_sum, count(*) as event_count,
      (array_agg(value order by timestamp desc, seq desc))[1] as last_value, max(timestamp) as last_timestamp,
      (array_agg(seq order by timestamp desc, seq desc))[1] as last_seq
    from kept group by meter_id, customer_id, bucket_start
  ), added as (
    insert into meter_usage (meter_id, customer_id, bucket_start, value_sum, event_count, last_value, last_timestamp, last_seq)
    select * from buckets order by meter_id, customer_id, bucket_start
    on conflict (meter_id, customer_id, bucket_start) where billed_until is null do update set
      value_sum = meter_usage.value_sum + excluded.value_sum,
      event_count = meter_usage.event_count + excluded.event_count,
      last_value = case when (excluded.last_timestamp, excluded.last_seq) > (meter_usage.last_timestamp, meter_usage.last_seq) then excluded.last_value else meter_usage.last_value end,
      last_seq = case when (excluded.last_timestamp, excluded.last_seq) > (meter_usage.last_timestamp, meter_usage.last_seq) then excluded.last_seq else meter_usage.last_seq end,
      last_timestamp = greatest(excluded.last_timestamp, meter_usage.last_timestamp)
    returning 1
  )
  select identifier from kept`;

/** Records the events new to the scope (by identifier) and adds them to their buckets: one statement. The identifiers recorded. */
export async function recordMeterEvents(db: Db, scope: { accountId: string; mode: Mode }, events: readonly CheckedEvent[], now: Date): Promise<Set<string>> {
  const rows = await sql<{ identifier: string }>(db, RECORD_EVENTS_SQL, [
    scope.accountId,
    scope.mode,
    events.map((e) => e.identifier),
    events.map((e) => e.meterId),
    events.map((e) => e.eventName),
    events.map((e) => e.customerId),
    events.map((e) => e.value),
    events.map((e) => e.timestamp),
    events.map((e) => e.bucketStart),
    now,
  ]);
  return new Set(rows.map((r) => r.identifier));
}

export interface MeterEventRow {
  identifier: string;
  event_name: string;
  customer_id: string;
  value: string | number;
  timestamp: Date;
}

export async function findMeterEvent(db: Db, scope: { accountId: string; mode: Mode }, identifier: string): Promise<MeterEventRow | undefined> {
  const [row] = await sql<MeterEventRow>(db, 'select identifier, event_name, customer_id, value, timestamp from meter_events where account_id = $1 and mode = $2 and identifier = $3', [
    scope.accountId,
    scope.mode,
    identifier,
  ]);
  return row;
}

/**
 * Forgets events that arrived over `windowMs` ago (their identifiers may be sent again): batches of
 * `batch` rows, each its own statement (no long lock), at most `batches` a call. How many went.
 */
export async function purgeMeterEvents(db: Db, now: Date, windowMs: number, { batch = 10_000, batches = 100 } = {}): Promise<number> {
  let purged = 0;
  for (let i = 0; i < batches; i++) {
    const rows = await sql(db, 'delete from meter_events where ctid = any (array(select ctid from meter_events where created_at < $1 limit $2)) returning 1', [new Date(now.getTime() - windowMs), batch]);
    purged += rows.length;
    if (rows.length < batch) break;
  }
  return purged;
}

/** The usage of a meter and customer over buckets starting in [from, to): only those not invoiced yet, or all. */
export interface UsageQuery {
  meterId: string;
  customerId: string;
  from: Date;
  to: Date;
  notInvoicedOnly: boolean;
}

const windowsOf = (queries: readonly UsageQuery[]) => [
  queries.map((q) => q.meterId),
  queries.map((q) => q.customerId),
  queries.map((q) => q.from),
  queries.map((q) => q.to),
  queries.map((q) => q.notInvoicedOnly),
];

const WINDOWS = `unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::boolean[]) with ordinality as w(meter_id, customer_id, from_t, to_t, open_only, n)`;

const TOTALS = (u: string) => `coalesce(sum(${u}.value_sum), 0) as sum, coalesce(sum(${u}.event_count), 0) as count,
  coalesce((array_agg(${u}.last_value order by ${u}.last_timestamp desc, ${u}.last_seq desc) filter (where ${u}.last_seq is not null))[1], 0) as last`;

const AGGREGATION = '(select m.aggregation from meters m where m.id = w.meter_id) as aggregation';

const USAGE_SQL = `select w.n, ${AGGREGATION}, ${TOTALS('u')} from ${WINDOWS}
  left join meter_usage u on u.meter_id = w.meter_id and u.customer_id = w.customer_id and u.bucket_start >= w.from_t and u.bucket_start < w.to_t
    and (not w.open_only or u.billed_until is null)
  group by w.n, w.meter_id order by w.n`;

// Invoicing: the open buckets of each window closed (billed until its end) and totalled. A bucket
// an event is being added to meanwhile is taken as that event leaves it (its row lock).
const BILL_USAGE_SQL = `with w as (select * from ${WINDOWS}), billed as (
    update meter_usage u set billed_until = w.to_t from w
    where u.meter_id = w.meter_id and u.customer_id = w.customer_id and u.bucket_start >= w.from_t and u.bucket_start < w.to_t and u.billed_until is null
    returning w.n, u.value_sum, u.event_count, u.last_value, u.last_timestamp, u.last_seq
  )
  select w.n, ${AGGREGATION}, ${TOTALS('b')} from w left join billed b on b.n = w.n group by w.n, w.meter_id order by w.n`;

type TotalsRow = { n: string; aggregation: Aggregation; sum: string; count: string; last: string };
/** The usage of each query, as its meter aggregates it. */
const valuesOf = (rows: TotalsRow[]): number[] => rows.map((r) => aggregatedValue(r.aggregation, { sum: Number(r.sum), count: Number(r.count), last: Number(r.last) }));

/** The usage of each query, in order, as its meter aggregates it: one statement. */
export async function usageValues(db: Db, queries: readonly UsageQuery[]): Promise<number[]> {
  if (queries.length === 0) return [];
  return valuesOf(await sql<TotalsRow>(db, USAGE_SQL, windowsOf(queries)));
}

/** The usage not invoiced yet of each query, in order, marked invoiced (until its `to`): one statement, for a whole batch of renewals. */
export async function billUsage(db: Db, queries: readonly UsageQuery[]): Promise<number[]> {
  if (queries.length === 0) return [];
  return valuesOf(await sql<TotalsRow>(db, BILL_USAGE_SQL, windowsOf(queries.map((q) => ({ ...q, notInvoicedOnly: true })))));
}

/**
 * A subscription of the customer still running, but `except`, that bills one of the meters (one
 * subscription bills a meter's usage of a customer), read with the customer's row locked, so two
 * subscriptions made at once cannot both take a meter.
 */
export async function meterBilledBy(
  db: Db,
  customer: { accountId: string; mode: Mode; customerId: string },
  meterIds: readonly string[],
  except: string | null,
): Promise<{ subscription_id: string; meter_id: string } | undefined> {
  await sql(db, 'select id from customers where id = $1 for update', [customer.customerId]);
  const [row] = await sql<{ subscription_id: string; meter_id: string }>(
    db,
    `select s.id as subscription_id, p.meter_id from subscriptions s
       join subscription_items si on si.subscription_id = s.id
       join prices p on p.id = si.price_id
     where s.account_id = $1 and s.mode = $2 and s.customer_id = $3 and s.status not in ('canceled', 'incomplete_expired')
       and p.meter_id = any($4::text[]) and s.id <> $5
     limit 1`,
    [customer.accountId, customer.mode, customer.customerId, meterIds, except ?? ''],
  );
  return row;
}
