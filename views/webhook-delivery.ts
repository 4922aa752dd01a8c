// The public WebhookDelivery (one event to one endpoint) with its WebhookAttempts.
import type { WebhookAttemptRow, WebhookDeliveryRow } from '../db/webhook-deliveries';
import { timestamp } from '../domain/time';

export function webhookAttemptView(row: WebhookAttemptRow) {
  return {
    object: 'webhook_attempt' as const,
    deliveryId: row.delivery_id,
    attemptNumber: row.attempt_number,
    attemptedAt: row.attempted_at.toISOString(),
    statusCode: row.status_code,
    latencyMs: row.latency_ms,
    responseBody: row.response_body,
    error: row.error,
  };
}

export function webhookDeliveryView(row: WebhookDeliveryRow, attempts: readonly WebhookAttemptRow[]) {
  return {
    object: 'webhook_delivery' as const,
    id: row.id,
    mode: row.mode,
    webhookEndpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attemptCount: row.attempt_count,
    nextAttemptAt: timestamp(row.next_attempt_at),
    deliveredAt: timestamp(row.delivered_at),
    failedAt: timestamp(row.failed_at),
    createdAt: row.created_at.toISOString(),
    attempts: attempts.map(webhookAttemptView),
  };
}

/** Deliveries, each with its attempts in order, from the attempts of all of them (one query's rows). */
export function webhookDeliveriesView(deliveries: readonly WebhookDeliveryRow[], attempts: readonly WebhookAttemptRow[]) {
  const byDelivery = new Map<string, WebhookAttemptRow[]>();
  for (const attempt of attempts) {
    const list = byDelivery.get(attempt.delivery_id);
    if (list) list.push(attempt);
    else byDelivery.set(attempt.delivery_id, [attempt]);
  }
  return deliveries.map((delivery) => webhookDeliveryView(delivery, byDelivery.get(delivery.id) ?? []));
}
