// Events, the outbox of webhooks: recorded inside the transaction of the change they describe,
// turned into deliveries by the dispatcher (services/webhook-deliveries/dispatch.ts), and listed by
// GET /v1/events. Their public form is views/event.ts.
import type { Knex } from 'knex';
import { newId } from '../crypto/ids';
import type { Mode } from '../domain/api-keys';
import type { PublicEventType } from '../domain/event-types';
import { emailValues, insertEmailSql, type NewEmailRow } from './emails';
import { sql, type Statement } from './sql';

/** The Postgres NOTIFY channel that tells dispatchers the outbox has new events. */
export const EVENTS_CHANNEL = 'kasi_events';

export interface EventRow {
  id: string;
  account_id: string;
  mode: Mode;
  type: PublicEventType;
  data: unknown;
  created_at: Date;
}

export interface NewEvent {
  accountId: string;
  mode: Mode;
  type: PublicEventType;
  data: unknown;
  now: Date;
}

export function eventRow(input: NewEvent): EventRow {
  return { id: newId('event', input.now.getTime()), account_id: input.accountId, mode: input.mode, type: input.type, data: input.data, created_at: input.now };
}

/**
 * The insert of events, one row per element of six arrays from $`first` on (ids, accounts, modes,
 * types, data as JSON text, times: eventArrays), each row once for each row of the `from` list
 * (a CTE's; none: once), returning whether it waits for the dispatchers. `data` makes each event's
 * data from its JSON text (`e.data`). An event of an account and mode without an enabled webhook
 * endpoint has nothing to deliver: it is written dispatched, so no dispatcher wakes for it. (An
 * endpoint takes the events created once it is enabled.)
 */
export function insertEventsSql(first: number, options: { from?: string; data?: (text: string) => string } = {}): string {
  const [ids, accounts, modes, types, data, times] = [0, 1, 2, 3, 4, 5].map((i) => `$${first + i}`);
  return `insert into events (id, account_id, mode, type, data, created_at, dispatched_at)
    select e.id, e.account_id, e.mode, e.type, (${options.data?.('e.data') ?? 'e.data'})::json, e.created_at,
      case when exists (select 1 from webhook_endpoints w where w.account_id = e.account_id and w.mode = e.mode and w.enabled)
        then null else e.created_at end
    from unnest(${ids}::text[], ${accounts}::text[], ${modes}::text[], ${types}::text[], ${data}::text[], ${times}::timestamptz[])
      as e(id, account_id, mode, type, data, created_at)${options.from === undefined ? '' : `, ${options.from}`}
    returning dispatched_at is null as undispatched`;
}

/** The six arrays of insertEventsSql for `rows`. */
export function eventArrays(rows: readonly EventRow[]): unknown[][] {
  return [rows.map((r) => r.id), rows.map((r) => r.account_id), rows.map((r) => r.mode), rows.map((r) => r.type), rows.map((r) => JSON.stringify(r.data)), rows.map((r) => r.created_at)];
}

// Wakes the webhook dispatchers when the transaction commits (no-op if it rolls back).
const NOTIFY = `pg_notify('${EVENTS_CHANNEL}', '')`;

/** A select of the dispatchers' wake-up if the CTE `recorded` (an insertEventsSql) wrote an event to deliver. */
export const NOTIFY_IF_UNDISPATCHED = `(select ${NOTIFY} where exists (select 1 from recorded where undispatched))`;

const RECORD_EVENTS_SQL = `with recorded as (${insertEventsSql(1)}) select ${NOTIFY_IF_UNDISPATCHED}`;

/** Records the events in `trx`, the transaction of the change they describe, in the order given: one round trip. */
export async function recordEvents(trx: Knex.Transaction, inputs: readonly NewEvent[]): Promise<EventRow[]> {
  const rows = inputs.map(eventRow);
  await sql(trx, RECORD_EVENTS_SQL, eventArrays(rows));
  return rows;
}

/** recordEvents' statement, for a write sent later (services/run.ts writeLast). */
export function recordEventsStatement(inputs: readonly NewEvent[]): Statement {
  return { text: RECORD_EVENTS_SQL, values: eventArrays(inputs.map(eventRow)) };
}

/** Records the event in `trx`, the transaction of the change it describes: one round trip. */
export async function recordEvent(trx: Knex.Transaction, input: NewEvent): Promise<EventRow> {
  const [row] = await recordEvents(trx, [input]);
  return row!;
}

/**
 * Runs `change` (one `update … returning *`, its $n the `values`) and, in the same statement,
 * records `event` (and keeps `email`, if given) if it changed a row: atomic without a transaction
 * and one round trip, for the hottest changes (a payment's outcome). The changed row, or undefined
 * when the update matched none (then no event nor email either).
 */
export async function changeRecordingEvent<Row extends object>(
  db: Knex | Knex.Transaction,
  change: string,
  values: readonly unknown[],
  event: NewEvent,
  email?: NewEmailRow,
): Promise<Row | undefined> {
  const { text, values: all } = changeRecordingEventStatement(change, values, event, email);
  return changedRow<Row>(await sql(db, text, [...all]));
}

/** The statement of changeRecordingEvent, to be sent with others (db/sql.ts runStatements); its rows go to changedRow. */
export function changeRecordingEventStatement(change: string, values: readonly unknown[], event: NewEvent, email?: NewEmailRow): Statement {
  const eventFrom = values.length + 1;
  const emailFrom = eventFrom + 6;
  const text = `with changed as (${change}), recorded as (${insertEventsSql(eventFrom, { from: 'changed' })})${email ? `, emailed as (${insertEmailSql(emailFrom, 'from changed')})` : ''}
    select changed.*, ${NOTIFY_IF_UNDISPATCHED} as notified from changed`;
  return { text, values: [...values, ...eventArrays([eventRow(event)]), ...(email ? emailValues(email) : [])] };
}

/** The row a changeRecordingEventStatement changed; undefined when it matched none. */
export function changedRow<Row extends object>(rows: readonly object[]): Row | undefined {
  const changed = rows[0] as (Row & { notified?: unknown }) | undefined;
  if (changed === undefined) return undefined;
  delete changed.notified;
  return changed;
}

/** An account's events of one mode, narrowed to a type and to those created since a time. */
export function eventsQuery(
  db: Knex | Knex.Transaction,
  scope: { accountId: string; mode: Mode },
  filters: { type?: string; since?: Date },
): Knex.QueryBuilder {
  const rows = db<EventRow>('events').where({ account_id: scope.accountId, mode: scope.mode });
  if (filters.type !== undefined) void rows.where('type', filters.type);
  if (filters.since !== undefined) void rows.where('created_at', '>=', filters.since);
  return rows;
}

/**
 * Up to `limit` events not yet dispatched, oldest first, locked for `trx`: rows another dispatcher
 * holds are skipped, so dispatchers on several processes never take the same event.
 */
export async function lockUndispatchedEvents(trx: Knex.Transaction, limit: number): Promise<EventRow[]> {
  return (await trx('events').whereNull('dispatched_at').orderBy('id').limit(limit).forUpdate().skipLocked()) as EventRow[];
}

export async function markEventsDispatched(trx: Knex.Transaction, ids: readonly string[], now: Date): Promise<void> {
  await trx('events').whereIn('id', ids).update({ dispatched_at: now });
}
