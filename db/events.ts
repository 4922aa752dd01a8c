// Events, the outbox of webhooks: recorded inside the transaction of the change they describe,
// turned into deliveries by the dispatcher (services/webhook-deliveries/dispatch.ts), and listed by
// GET /v1/events. Their public form is views/event.ts.
import type { Knex } from 'knex';
import { newId } from '../crypto/ids';
import type { Mode } from '../domain/api-keys';
import type { PublicEventType } from '../domain/event-types';

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

/** Records the event in `trx`, the transaction of the change it describes. */
export async function recordEvent(
  trx: Knex.Transaction,
  input: { accountId: string; mode: Mode; type: PublicEventType; data: unknown; now: Date },
): Promise<EventRow> {
  const row: EventRow = {
    id: newId('event', input.now.getTime()),
    account_id: input.accountId,
    mode: input.mode,
    type: input.type,
    data: input.data,
    created_at: input.now,
  };
  await trx('events').insert({ ...row, data: JSON.stringify(input.data) });
  // Wakes the webhook dispatchers when the transaction commits (no-op if it rolls back).
  await trx.raw(`select pg_notify('${EVENTS_CHANNEL}', '')`);
  return row;
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
