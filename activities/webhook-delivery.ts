// Activities of the webhook delivery workflow: one signed attempt (recorded with its time, status
// code, latency and the start of the answer), and marking a delivery failed when the ladder ends.
import type { ActivityDeps } from './deps';
import { webhookAttempted } from '../config/metrics';
import { signatureHeader, SIGNATURE_HEADER } from '../domain/webhook-signature';
import { delayAfterAttempt } from '../domain/webhook-retry';
import { sql } from '../db/sql';
import { deliveryToAttempt, RESPONSE_BODY_LIMIT } from '../db/webhook-deliveries';
import { postWebhook, type Resolver } from '../net/webhook-http';

export const DELIVERY_ID_HEADER = 'Service-Delivery-Id';
export const USER_AGENT = 'Kasi-Webhooks/1.0';

export interface AttemptResult {
  delivered: boolean;
  attemptNumber: number;
}

export function createWebhookActivities(deps: ActivityDeps & { resolve?: Resolver }) {
  const { db, clock, config, log } = deps;

  /** One attempt. `manual` (a re-send by hand) also sends a delivery that already ended. */
  async function attemptWebhookDelivery(deliveryId: string, options: { manual?: boolean } = {}): Promise<AttemptResult> {
    const now = clock.now();
    const delivery = await deliveryToAttempt(db, deliveryId, config.secretKey(), now);
    if (!delivery) throw new Error(`no webhook delivery ${deliveryId}`);
    if (delivery.status === 'delivered' && !options.manual) return { delivered: true, attemptNumber: delivery.attempt_count };
    const attemptNumber = delivery.attempt_count + 1;
    const outcome = await postWebhook(
      delivery.url,
      delivery.payload,
      {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        [DELIVERY_ID_HEADER]: delivery.id,
        [SIGNATURE_HEADER]: signatureHeader(delivery.secrets, Math.floor(now.getTime() / 1000), delivery.payload),
      },
      { mode: delivery.mode, allowLoopback: config.webhookAllowLoopback, timeoutMs: config.webhookTimeoutMs, resolve: deps.resolve, responseLimit: RESPONSE_BODY_LIMIT },
    );
    const delivered = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
    const delay = delivered || options.manual ? null : delayAfterAttempt(attemptNumber);
    // The attempt and the delivery's new state in one statement (one round trip, all or nothing);
    // a retried activity that already recorded this attempt number records nothing twice. A ping
    // (no event) has no ladder: its one attempt decides it.
    await sql(
      db,
      `with attempt as (
         insert into webhook_attempts (delivery_id, attempt_number, attempted_at, status_code, latency_ms, response_body, error)
         values ($1, $2, $3, $4, $5, $6, $7) on conflict (delivery_id, attempt_number) do nothing
       )
       update webhook_deliveries set attempt_count = $2,
         status = case when $8 then 'delivered' when event_id is null then 'failed' else status end,
         delivered_at = case when $8 then $3 else delivered_at end,
         failed_at = case when $8 then null when event_id is null then $3 else failed_at end,
         next_attempt_at = $9
       where id = $1`,
      [
        delivery.id,
        attemptNumber,
        now,
        outcome.statusCode,
        outcome.latencyMs,
        outcome.responseBody,
        outcome.error,
        delivered,
        delay === null ? null : new Date(now.getTime() + delay),
      ],
    );
    // Retried: the ladder schedules another attempt; failed: none follows this one.
    const result = delivered ? 'delivered' : delay !== null && delivery.event_id !== null ? 'retried' : 'failed';
    webhookAttempted(result, outcome.latencyMs);
    log.info(
      {
        deliveryId: delivery.id,
        endpointId: delivery.endpoint_id,
        accountId: delivery.account_id,
        mode: delivery.mode,
        eventType: delivery.event_type,
        attempt: attemptNumber,
        manual: options.manual === true,
        statusCode: outcome.statusCode,
        error: outcome.error,
        latencyMs: outcome.latencyMs,
        outcome: result,
      },
      'webhook attempt',
    );
    return { delivered, attemptNumber };
  }

  async function failWebhookDelivery(deliveryId: string): Promise<void> {
    await db('webhook_deliveries').where({ id: deliveryId, status: 'pending' }).update({ status: 'failed', failed_at: clock.now(), next_attempt_at: null });
  }

  return { attemptWebhookDelivery, failWebhookDelivery };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
