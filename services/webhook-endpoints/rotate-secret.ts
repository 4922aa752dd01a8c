// Rotate an endpoint's signing secret: a new one, shown this once; the old one keeps signing
// alongside for 24 hours, so the merchant can switch over without missing a webhook.
import { replaceSigningSecret, type WebhookEndpointRow } from '../../db/webhook-endpoints';
import type { ServiceContext } from '../context';

/** The new secret. Two statements: `ctx` is a transaction (the API's writes, `inTransaction`). */
export async function rotateWebhookSecret(ctx: ServiceContext, endpoint: WebhookEndpointRow): Promise<string> {
  return replaceSigningSecret(ctx.db, endpoint.id, ctx.config.secretKey(), ctx.clock.now());
}
