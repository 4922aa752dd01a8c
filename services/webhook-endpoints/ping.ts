// Ping a webhook endpoint: a test.ping to that endpoint alone, as a delivery of its own with no
// event (so no retry ladder: its one attempt decides it). The API answers at once and the attempt
// runs in its own workflow; `kasi webhook ping` makes the attempt itself and prints its answer.
import { newId } from '../../crypto/ids';
import { insertDelivery, newDeliveryRow, type WebhookDeliveryRow } from '../../db/webhook-deliveries';
import type { WebhookEndpointRow } from '../../db/webhook-endpoints';
import { pingEventView } from '../../views/event';
import type { ServiceContext } from '../context';
import { sendOnceAfterCommit } from '../webhook-deliveries/send-once';

/** The ping's delivery, written (committed on its own: one statement). */
export async function createPingDelivery(
  db: ServiceContext['db'],
  endpoint: Pick<WebhookEndpointRow, 'id' | 'account_id' | 'mode'>,
  now: Date,
): Promise<WebhookDeliveryRow> {
  const payload = JSON.stringify(pingEventView({ id: newId('event', now.getTime()), mode: endpoint.mode, webhookEndpointId: endpoint.id, createdAt: now }));
  return insertDelivery(db, newDeliveryRow(endpoint, { id: null, type: 'test.ping', payload }, now));
}

/**
 * The ping's delivery. `attempt: 'workflow'` starts its attempt's workflow once committed;
 * `'caller'` leaves the attempt to the caller, who waits for it (attemptWebhookDelivery).
 */
export async function pingWebhookEndpoint(ctx: ServiceContext, endpoint: WebhookEndpointRow, attempt: 'workflow' | 'caller'): Promise<WebhookDeliveryRow> {
  const delivery = await createPingDelivery(ctx.db, endpoint, ctx.clock.now());
  if (attempt === 'workflow') sendOnceAfterCommit(ctx, delivery);
  return delivery;
}
