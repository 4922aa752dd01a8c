// Webhook deliveries (one per event and endpoint, or a ping's) and their attempts. The dispatcher
// turns the events outbox into deliveries (services/webhook-deliveries/dispatch.ts); each
// delivery's workflow makes the attempts (services/webhook-deliveries/attempt.ts).
import type { Knex } from 'knex';
import { newId } from '../crypto/ids';
import type { Mode } from '../domain/api-keys';
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

/** A pending delivery of `event` (a recorded event, or a ping's, which has no event row) to `endpoint`. */
export function newDeliveryRow(
  endpoint: { id: string; account_id: string; mode: Mode },
  event: { id: string | null; type: string; payload: string },
  now: Date,
): WebhookDeliveryRow {
  return {
    id: newId('webhookDelivery', now.getTime()),
    endpoint_id: endpoint.id,
    account_id: endpoint.account_id,
    mode: endpoint.mode,
    event_id: event.id,
    event_type: event.type,
    payload: event.payload,
    status: 'pending',
    attempt_count: 0,
    next_attempt_at: now,
    delivered_at: null,
    failed_at: null,
    created_at: now,
  };
}

export async function insertDelivery(db: Knex | Knex.Transaction, row: WebhookDeliveryRow): Promise<WebhookDeliveryRow> {
  const [inserted] = (await db('webhook_deliveries').insert(row).returning('*')) as WebhookDeliveryRow[];
  return inserted!;
}

/** Deliveries of events, less those already made (one per event and endpoint): the ones inserted. */
export async function insertEventDeliveries(db: Knex | Knex.Transaction, rows: readonly WebhookDeliveryRow[]): Promise<WebhookDeliveryRow[]> {
  if (rows.length === 0) return [];
  return (await db('webhook_deliveries')
    .insert(rows)
    .onConflict(db.raw('(event_id, endpoint_id) where event_id is not null'))
    .ignore()
    .returning('*')) as WebhookDeliveryRow[];
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

type PendingDelivery = Pick<WebhookDeliveryRow, 'id' | 'account_id' | 'mode' | 'event_id' | 'attempt_count' | 'next_attempt_at'>;

/**
 * Deliveries still pending, with what their workflow needs to resume (not the payloads): an
 * event's delivery on its ladder, or a ping (no event) whose one attempt was not made.
 */
export async function pendingDeliveries(db: Knex): Promise<PendingDelivery[]> {
  return (await db('webhook_deliveries').where({ status: 'pending' }).select('id', 'account_id', 'mode', 'event_id', 'attempt_count', 'next_attempt_at')) as PendingDelivery[];
}

/**
 * Records an attempt and the delivery's new state in one statement (one round trip, all or
 * nothing); a retried activity that already recorded this attempt number records nothing twice. A
 * ping (no event) has no ladder: its one attempt decides it. `nextAttemptAt` null: none follows.
 */
export async function recordAttempt(
  db: Knex | Knex.Transaction,
  attempt: WebhookAttemptRow,
  delivery: { delivered: boolean; nextAttemptAt: Date | null },
): Promise<void> {
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
      attempt.delivery_id,
      attempt.attempt_number,
      attempt.attempted_at,
      attempt.status_code,
      attempt.latency_ms,
      attempt.response_body,
      attempt.error,
      delivery.delivered,
      delivery.nextAttemptAt,
    ],
  );
}

/** The retry ladder ended without a 2xx: a delivery still pending is failed. */
export async function failPendingDelivery(db: Knex | Knex.Transaction, deliveryId: string, now: Date): Promise<void> {
  await db('webhook_deliveries').where({ id: deliveryId, status: 'pending' }).update({ status: 'failed', failed_at: now, next_attempt_at: null });
}

/** An endpoint's deliveries (the API pages through them, newest first). */
export function deliveriesOfEndpointQuery(db: Knex | Knex.Transaction, endpointId: string): Knex.QueryBuilder {
  return db<WebhookDeliveryRow>('webhook_deliveries').where({ endpoint_id: endpointId });
}

/** The attempts of these deliveries, in order per delivery: one query for a whole page. */
export async function attemptsOf(db: Knex | Knex.Transaction, deliveries: readonly { id: string }[]): Promise<WebhookAttemptRow[]> {
  if (deliveries.length === 0) return [];
  return (await db('webhook_attempts').whereIn('delivery_id', deliveries.map((d) => d.id)).orderBy(['delivery_id', 'attempt_number'])) as WebhookAttemptRow[];
}

export type EndpointAttemptRow = WebhookAttemptRow & { event_type: string; event_id: string | null };

/** An endpoint's newest attempts across its deliveries, with each one's event. */
export async function latestAttemptsOfEndpoint(db: Knex | Knex.Transaction, endpointId: string, limit: number): Promise<EndpointAttemptRow[]> {
  return (await db('webhook_attempts as a')
    .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .where('d.endpoint_id', endpointId)
    .orderBy([{ column: 'a.attempted_at', order: 'desc' }, { column: 'a.id', order: 'desc' }])
    .limit(limit)
    .select('a.*', 'd.event_type', 'd.event_id')) as EndpointAttemptRow[];
}
