// Activities of the webhook delivery workflow: one signed attempt (recorded with its time, status
// code, latency and the start of the answer), and marking a delivery failed when the ladder ends.
import type { ActivityDeps } from '.';
import { signatureHeader, SIGNATURE_HEADER } from '../domain/webhook-signature';
import { delayAfterAttempt } from '../domain/webhook-retry';
import { signingSecrets, type WebhookEndpointRow } from '../db/webhook-endpoints';
import { RESPONSE_BODY_LIMIT, type WebhookDeliveryRow } from '../db/webhook-deliveries';
import { postWebhook, type Resolver } from './webhook-http';

export const DELIVERY_ID_HEADER = 'Service-Delivery-Id';
export const USER_AGENT = 'Kasi-Webhooks/1.0';

export interface AttemptResult {
  delivered: boolean;
  attemptNumber: number;
}

export function createWebhookActivities(deps: ActivityDeps & { resolve?: Resolver }) {
  const { db, clock, config } = deps;

  /** One attempt. `manual` (a re-send by hand) also sends a delivery that already ended. */
  async function attemptWebhookDelivery(deliveryId: string, options: { manual?: boolean } = {}): Promise<AttemptResult> {
    const delivery = (await db('webhook_deliveries').where({ id: deliveryId }).first()) as WebhookDeliveryRow | undefined;
    if (!delivery) throw new Error(`no webhook delivery ${deliveryId}`);
    if (delivery.status === 'delivered' && !options.manual) return { delivered: true, attemptNumber: delivery.attempt_count };
    const endpoint = (await db('webhook_endpoints').where({ id: delivery.endpoint_id }).first()) as WebhookEndpointRow;
    const now = clock.now();
    const attemptNumber = delivery.attempt_count + 1;
    const secrets = await signingSecrets(db, endpoint.id, config.secretKey(), now);
    const outcome = await postWebhook(
      endpoint.url,
      delivery.payload,
      {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        [DELIVERY_ID_HEADER]: delivery.id,
        [SIGNATURE_HEADER]: signatureHeader(secrets, Math.floor(now.getTime() / 1000), delivery.payload),
      },
      { mode: endpoint.mode, timeoutMs: config.webhookTimeoutMs, resolve: deps.resolve, responseLimit: RESPONSE_BODY_LIMIT },
    );
    const delivered = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
    const delay = delivered || options.manual ? null : delayAfterAttempt(attemptNumber);
    await db.transaction(async (trx) => {
      await trx('webhook_attempts')
        .insert({
          delivery_id: delivery.id,
          attempt_number: attemptNumber,
          attempted_at: now,
          status_code: outcome.statusCode,
          latency_ms: outcome.latencyMs,
          response_body: outcome.responseBody,
          error: outcome.error,
        })
        .onConflict(['delivery_id', 'attempt_number'])
        .ignore();
      await trx('webhook_deliveries')
        .where({ id: delivery.id })
        .update({
          attempt_count: attemptNumber,
          ...(delivered
            ? { status: 'delivered', delivered_at: now, next_attempt_at: null, failed_at: null }
            : { next_attempt_at: delay === null ? null : new Date(now.getTime() + delay) }),
        });
    });
    return { delivered, attemptNumber };
  }

  async function failWebhookDelivery(deliveryId: string): Promise<void> {
    await db('webhook_deliveries').where({ id: deliveryId, status: 'pending' }).update({ status: 'failed', failed_at: clock.now(), next_attempt_at: null });
  }

  return { attemptWebhookDelivery, failWebhookDelivery };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
