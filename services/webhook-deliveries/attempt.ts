// One attempt of a webhook delivery: the payload POSTed to the endpoint, signed with every secret
// that signs now, and the attempt recorded (time, status code, latency, the start of the answer)
// with the delivery's new state. A 2xx delivers; otherwise the retry ladder says when the next
// attempt is, or that none is. Called by the delivery workflows' activity and `kasi webhook ping`.
import { webhookAttempted } from '../../config/metrics';
import { signatureHeader, SIGNATURE_HEADER } from '../../domain/webhook-signature';
import { delayAfterAttempt } from '../../domain/webhook-retry';
import { deliveryToAttempt, recordAttempt, RESPONSE_BODY_LIMIT } from '../../db/webhook-deliveries';
import { postWebhook, type Resolver } from '../../net/webhook-http';
import type { ServiceDeps } from '../context';

export const DELIVERY_ID_HEADER = 'Service-Delivery-Id';
export const USER_AGENT = 'Kasi-Webhooks/1.0';

export type WebhookAttemptDeps = Pick<ServiceDeps, 'db' | 'clock' | 'config' | 'log'> & {
  /** How webhook hosts are resolved (tests point names at chosen addresses); DNS by default. */
  resolve?: Resolver;
};

export interface AttemptResult {
  delivered: boolean;
  attemptNumber: number;
}

/**
 * One attempt; an already delivered delivery is not sent again. `manual` (a ping, a re-send by
 * hand) also sends a delivery that already ended, and schedules nothing after it.
 */
export async function attemptWebhookDelivery(deps: WebhookAttemptDeps, deliveryId: string, options: { manual?: boolean } = {}): Promise<AttemptResult> {
  const { db, clock, config, log } = deps;
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
  await recordAttempt(
    db,
    {
      delivery_id: delivery.id,
      attempt_number: attemptNumber,
      attempted_at: now,
      status_code: outcome.statusCode,
      latency_ms: outcome.latencyMs,
      response_body: outcome.responseBody,
      error: outcome.error,
    },
    { delivered, nextAttemptAt: delay === null ? null : new Date(now.getTime() + delay) },
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
