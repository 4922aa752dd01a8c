// The public WebhookEndpoint object; its signing secret is shown only when it is made (creation,
// rotation), beside the endpoint.
import type { WebhookEndpointRow } from '../db/webhook-endpoints';

export function webhookEndpointView(row: WebhookEndpointRow) {
  return {
    object: 'webhook_endpoint' as const,
    id: row.id,
    mode: row.mode,
    url: row.url,
    enabled: row.enabled,
    eventTypes: row.event_types,
    createdAt: row.created_at.toISOString(),
  };
}

/** The endpoint with the secret just made: the one time it is shown. */
export function webhookEndpointWithSecretView(row: WebhookEndpointRow, secret: string) {
  return { ...webhookEndpointView(row), secret };
}
