// Change a webhook endpoint: its URL (checked for the endpoint's mode), the event types it takes,
// and whether it is enabled (a disabled endpoint gets no new deliveries). The API's update route,
// and `kasi webhook enable|disable`.
import { patchWebhookEndpoint, type WebhookEndpointRow } from '../../db/webhook-endpoints';
import type { ServiceContext } from '../context';
import { checkDestination } from './destination';

export interface WebhookEndpointChanges {
  url?: string;
  eventTypes?: string[] | null;
  enabled?: boolean;
}

export async function updateWebhookEndpoint(ctx: ServiceContext, endpoint: WebhookEndpointRow, changes: WebhookEndpointChanges): Promise<WebhookEndpointRow> {
  if (changes.url !== undefined) await checkDestination(ctx, changes.url, endpoint.mode);
  return patchWebhookEndpoint(ctx.db, endpoint.id, changes, ctx.clock.now());
}
