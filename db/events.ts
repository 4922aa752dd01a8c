// Events: the envelope {id, object:'event', type, mode, created, data}, identical in webhooks and
// in GET /v1/events. Record them inside the transaction of the change they describe.
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

export interface EventEnvelope {
  id: string;
  object: 'event';
  type: PublicEventType;
  mode: Mode;
  created: string;
  data: unknown;
}

export function eventView(row: EventRow): EventEnvelope {
  return { id: row.id, object: 'event', type: row.type, mode: row.mode, created: row.created_at.toISOString(), data: row.data };
}

export async function recordEvent(
  trx: Knex.Transaction,
  input: { accountId: string; mode: Mode; type: PublicEventType; data: unknown; now: Date },
): Promise<EventEnvelope> {
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
  return eventView(row);
}
