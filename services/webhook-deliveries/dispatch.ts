// Dispatch the events outbox: each event not yet dispatched becomes a delivery to every enabled
// endpoint of its account and mode that takes its type, with the event's public envelope as the
// payload. The webhook dispatcher (workers/webhook-dispatcher.ts) calls this and starts each
// delivery's workflow.
import { lockUndispatchedEvents, markEventsDispatched, type EventRow } from '../../db/events';
import { insertEventDeliveries, newDeliveryRow, type WebhookDeliveryRow } from '../../db/webhook-deliveries';
import { enabledEndpointsOf, type EndpointRoute } from '../../db/webhook-endpoints';
import { eventView } from '../../views/event';
import type { ServiceDeps } from '../context';

/** An endpoint takes the events of its account and mode, of its types (all when it names none). */
function takes(endpoint: EndpointRoute, event: EventRow): boolean {
  return endpoint.account_id === event.account_id && endpoint.mode === event.mode && (endpoint.event_types === null || endpoint.event_types.includes(event.type));
}

/**
 * Turns up to `limit` events into their deliveries and marks them dispatched, in one transaction
 * that skips events another dispatcher holds, so dispatchers on several processes never double up.
 * Returns the deliveries made (their workflows are still to start).
 */
export async function dispatchEvents(deps: Pick<ServiceDeps, 'db' | 'clock'>, limit = 100): Promise<WebhookDeliveryRow[]> {
  const now = deps.clock.now();
  return deps.db.transaction(async (trx) => {
    const events = await lockUndispatchedEvents(trx, limit);
    if (events.length === 0) return [];
    const endpoints = await enabledEndpointsOf(trx, events.map((e) => ({ accountId: e.account_id, mode: e.mode })));
    const deliveries = events.flatMap((event) => {
      const payload = JSON.stringify(eventView(event));
      return endpoints.filter((endpoint) => takes(endpoint, event)).map((endpoint) => newDeliveryRow(endpoint, { id: event.id, type: event.type, payload }, now));
    });
    const inserted = await insertEventDeliveries(trx, deliveries);
    await markEventsDispatched(trx, events.map((e) => e.id), now);
    return inserted;
  });
}
