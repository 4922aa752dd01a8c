// Events, the outbox of webhooks: recorded inside the transaction of the change they describe,
// turned into deliveries by the dispatcher (services/webhook-deliveries/dispatch.ts), and listed by
// GET /v1/events. Their public form is views/event.ts.
import type { Knex } from 'knex';
import { newId } from '../crypto/ids';
import type { Mode } from '../domain/api-keys';
import type { PublicEventType } from '../domain/event-types';
import { emailValues, insertEmailSql, type NewEmailRow } from './emails';
import { sql } from './sql';

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

function eventRow(input: NewEvent): EventRow {
  return { id: newId('event', input.now.getTime()), account_id: input.accountId, mode: input.mode, type: input.type, data: input.data, created_at: input.now };
}

/**
 * The event's insert, its $n from `first` on (id, account, mode, type, data, time), one row for
 * each row of `source`, returning whether it waits for the dispatchers. An event of an account and
 * mode without an enabled webhook endpoint has nothing to deliver: it is written dispatched, so no
 * dispatcher wakes for it. (An endpoint takes the events created once it is enabled.)
 */
function insertEventSql(first: number, source: string): string {
  const [id, account, mode, type, data, at] = [0, 1, 2, 3, 4, 5].map((i) => `$${first + i}`);
  return `insert into events (id, account_id, mode, type, data, created_at, dispatched_at)
    select ${id}::text, ${account}::text, ${mode}::text, ${type}::text, ${data}::json, ${at}::timestamptz,
      case when exists (select 1 from webhook_endpoints e where e.account_id = ${account}::text and e.mode = ${mode}::text and e.enabled)
        then null else ${at}::timestamptz end
    ${source}
    returning dispatched_at is null as undispatched`;
}

const eventValues = (row: EventRow) => [row.id, row.account_id, row.mode, row.type, JSON.stringify(row.data), row.created_at];

// Wakes the webhook dispatchers when the transaction commits (no-op if it rolls back).
const NOTIFY = `pg_notify('${EVENTS_CHANNEL}', '')`;

const RECORD_EVENT_SQL = `with recorded as (${insertEventSql(1, '')}) select ${NOTIFY} from recorded where undispatched`;

/** Records the event in `trx`, the transaction of the change it describes: one round trip. */
export async function recordEvent(trx: Knex.Transaction, input: NewEvent): Promise<EventRow> {
  const row = eventRow(input);
  await sql(trx, RECORD_EVENT_SQL, eventValues(row));
  return row;
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
  const eventFrom = values.length + 1;
  const emailFrom = eventFrom + 6;
  const text = `with changed as (${change}), recorded as (${insertEventSql(eventFrom, 'from changed')})${email ? `, emailed as (${insertEmailSql(emailFrom, 'from changed')})` : ''}
    select changed.*, (select ${NOTIFY} where recorded.undispatched) as notified from changed, recorded`;
  const [changed] = await sql<Row & { notified?: unknown }>(db, text, [...values, ...eventValues(eventRow(event)), ...(email ? emailValues(email) : [])]);
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
