// The public Event: the envelope {id, object:'event', type, mode, created, data}, identical in
// webhooks and in GET /v1/events (a test.ping has the same envelope).
import type { EventRow } from '../db/events';
import type { Mode } from '../domain/api-keys';
import type { EventType } from '../domain/event-types';

export interface EventEnvelope<Type extends EventType = EventType> {
  id: string;
  object: 'event';
  type: Type;
  mode: Mode;
  created: string;
  data: unknown;
}

export function eventView(row: EventRow): EventEnvelope<EventRow['type']> {
  return { id: row.id, object: 'event', type: row.type, mode: row.mode, created: row.created_at.toISOString(), data: row.data };
}

/** The test.ping an endpoint is sent by hand: an event of its own id, recorded nowhere but in its delivery. */
export function pingEventView(ping: { id: string; mode: Mode; webhookEndpointId: string; createdAt: Date }): EventEnvelope<'test.ping'> {
  return {
    id: ping.id,
    object: 'event',
    type: 'test.ping',
    mode: ping.mode,
    created: ping.createdAt.toISOString(),
    data: { object: 'ping', webhookEndpointId: ping.webhookEndpointId },
  };
}
