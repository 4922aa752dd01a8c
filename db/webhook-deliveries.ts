// Webhook deliveries (one per event and endpoint) and their attempts. The dispatcher turns the
// events outbox into deliveries; each delivery's workflow makes the attempts.
import type { Knex } from 'knex';
import { newId } from '../crypto/ids';
import type { Mode } from '../domain/api-keys';
import { eventView, type EventRow } from './events';
import { open } from './secret-box';
import { sql } from './sql';

export interface WebhookDeliveryRow {
  id: string;
  endpoint_id: string;
  account_id: string;
  mode: Mode;
  event_id: string | null;
  event_type: string;
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempt_count: number;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  failed_at: Date | null;
  created_at: Date;
}

export interface WebhookAttemptRow {
  delivery_id: string;
  attempt_number: number;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number;
  response_body: string | null;
  error: string | null;
}

/** Kept of a receiver's answer: enough to debug, never a whole page. */
export const RESPONSE_BODY_LIMIT = 1024;

/**
 * Turns up to `limit` undispatched events into deliveries for every enabled endpoint of their
 * account and mode that takes their type, and marks them dispatched: one transaction, skipping
 * rows another dispatcher holds, so dispatchers on several processes never double up.
 */
export async function dispatchOutbox(db: Knex, now: Date, limit = 100): Promise<WebhookDeliveryRow[]> {
  return db.transaction(async (trx) => {
    const events = (await trx('events').whereNull('dispatched_at').orderBy('id').limit(limit).forUpdate().skipLocked()) as EventRow[];
    if (events.length === 0) return [];
    const deliveries: WebhookDeliveryRow[] = [];
    const endpoints = (await trx('webhook_endpoints')
      .where({ enabled: true })
      .whereIn(['account_id', 'mode'], [...new Set(events.map((e) => `${e.account_id}\u0000${e.mode}`))].map((k) => k.split('\u0000')))
      .orderBy('id')
      .select('id', 'account_id', 'mode', 'event_types')) as { id: string; account_id: string; mode: Mode; event_types: string[] | null }[];
    for (const event of events) {
      const payload = JSON.stringify(eventView(event));
      for (const endpoint of endpoints) {
        if (endpoint.account_id !== event.account_id || endpoint.mode !== event.mode) continue;
        if (endpoint.event_types && !endpoint.event_types.includes(event.type)) continue;
        deliveries.push({
          id: newId('webhookDelivery', now.getTime()),
          endpoint_id: endpoint.id,
          account_id: event.account_id,
          mode: event.mode,
          event_id: event.id,
          event_type: event.type,
          payload,
          status: 'pending',
          attempt_count: 0,
          next_attempt_at: now,
          delivered_at: null,
          failed_at: null,
          created_at: now,
        });
      }
    }
    const inserted = deliveries.length
      ? ((await trx('webhook_deliveries').insert(deliveries).onConflict(trx.raw('(event_id, endpoint_id) where event_id is not null')).ignore().returning('*')) as WebhookDeliveryRow[])
      : [];
    await trx('events').whereIn('id', events.map((e) => e.id)).update({ dispatched_at: now });
    return inserted;
  });
}

export type DeliveryToAttempt = WebhookDeliveryRow & { url: string; secrets: string[] };

/**
 * A delivery with what its next attempt needs: the endpoint's URL and every secret that signs at
 * `now` (newest first, opened with `key`), in one round trip.
 */
export async function deliveryToAttempt(db: Knex, deliveryId: string, key: Buffer, now: Date): Promise<DeliveryToAttempt | undefined> {
  const [row] = await sql<WebhookDeliveryRow & { url: string; secret_boxes: string[] }>(
    db,
    `select d.*, e.url, array(
       select s.secret_box from webhook_secrets s
       where s.endpoint_id = d.endpoint_id and (s.expires_at is null or s.expires_at > $2) order by s.id desc
     ) as secret_boxes
     from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id where d.id = $1`,
    [deliveryId, now],
  );
  if (row === undefined) return undefined;
  const { secret_boxes: boxes, ...delivery } = row;
  return { ...delivery, secrets: boxes.map((box) => open(key, box)) };
}

export async function createPingDelivery(db: Knex | Knex.Transaction, endpoint: { id: string; account_id: string; mode: Mode }, now: Date): Promise<WebhookDeliveryRow> {
  const payload = JSON.stringify({
    id: newId('event', now.getTime()),
    object: 'event',
    type: 'test.ping',
    mode: endpoint.mode,
    created: now.toISOString(),
    data: { object: 'ping', webhookEndpointId: endpoint.id },
  });
  const [row] = (await db('webhook_deliveries')
    .insert({
      id: newId('webhookDelivery', now.getTime()),
      endpoint_id: endpoint.id,
      account_id: endpoint.account_id,
      mode: endpoint.mode,
      event_id: null,
      event_type: 'test.ping',
      payload,
      status: 'pending',
      attempt_count: 0,
      next_attempt_at: now,
      created_at: now,
    })
    .returning('*')) as WebhookDeliveryRow[];
  return row!;
}

type PendingDelivery = Pick<WebhookDeliveryRow, 'id' | 'account_id' | 'mode' | 'event_id' | 'attempt_count' | 'next_attempt_at'>;

/**
 * Deliveries still pending, with what their workflow needs to resume (not the payloads): an
 * event's delivery on its ladder, or a ping (no event) whose one attempt was not made.
 */
export async function pendingDeliveries(db: Knex): Promise<PendingDelivery[]> {
  return (await db('webhook_deliveries').where({ status: 'pending' }).select('id', 'account_id', 'mode', 'event_id', 'attempt_count', 'next_attempt_at')) as PendingDelivery[];
}

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

export function webhookDeliveryView(row: WebhookDeliveryRow) {
  return {
    object: 'webhook_delivery' as const,
    id: row.id,
    mode: row.mode,
    webhookEndpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attemptCount: row.attempt_count,
    nextAttemptAt: row.next_attempt_at?.toISOString() ?? null,
    deliveredAt: row.delivered_at?.toISOString() ?? null,
    failedAt: row.failed_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

/** Deliveries as the API shows them, each with its attempts (one query for the whole page). */
export async function deliveriesWithAttempts(db: Knex | Knex.Transaction, deliveries: WebhookDeliveryRow[]) {
  const attempts = deliveries.length
    ? ((await db('webhook_attempts').whereIn('delivery_id', deliveries.map((d) => d.id)).orderBy(['delivery_id', 'attempt_number'])) as WebhookAttemptRow[])
    : [];
  return deliveries.map((d) => ({ ...webhookDeliveryView(d), attempts: attempts.filter((a) => a.delivery_id === d.id).map(webhookAttemptView) }));
}
