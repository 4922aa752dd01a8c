// Create a webhook endpoint: its URL checked for the mode, then the endpoint and its first signing
// secret (shown this once). The API's POST /v1/webhook_endpoints and `kasi webhook add`.
import { createWebhookEndpoint as insertWebhookEndpoint, type WebhookEndpointRow } from '../../db/webhook-endpoints';
import type { AccountScope, ServiceContext } from '../context';
import { checkDestination } from './destination';

export interface WebhookEndpointInput {
  url: string;
  /** The event types sent there; omitted or null: all of them. */
  eventTypes?: string[] | null;
}

export async function createWebhookEndpoint(
  ctx: ServiceContext,
  scope: AccountScope,
  input: WebhookEndpointInput,
): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
  await checkDestination(ctx, input.url, scope.mode);
  return insertWebhookEndpoint(ctx.db, {
    accountId: scope.account.id,
    mode: scope.mode,
    url: input.url,
    eventTypes: input.eventTypes ?? null,
    key: ctx.config.secretKey(),
    now: ctx.clock.now(),
  });
}
