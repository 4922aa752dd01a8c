// Re-send a delivery by hand: one more attempt, in a workflow run of its own, once the delivery
// has left its retry schedule (delivered or failed).
import { ApiError } from '../../domain/errors';
import type { WebhookDeliveryRow } from '../../db/webhook-deliveries';
import type { ServiceContext } from '../context';
import { sendOnceAfterCommit } from './send-once';

export async function resendWebhookDelivery(ctx: ServiceContext, delivery: WebhookDeliveryRow): Promise<WebhookDeliveryRow> {
  if (delivery.status === 'pending') {
    throw new ApiError('CONFLICT', 'The delivery is still on its retry schedule; re-send it once it has ended.');
  }
  sendOnceAfterCommit(ctx, delivery);
  return delivery;
}
