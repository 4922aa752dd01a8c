// Webhook endpoints per account and mode, and their signing secrets. A secret is shown once (at
// creation and at rotation); a rotated-out secret keeps signing alongside the new one for 24 h.
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { newId } from '../crypto/ids';
import type { Mode } from '../domain/api-keys';
import { seal } from './secret-box';

export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface WebhookEndpointRow {
  id: string;
  account_id: string;
  mode: Mode;
  url: string;
  enabled: boolean;
  event_types: string[] | null;
  created_at: Date;
  updated_at: Date;
}

export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

async function addSecret(db: Knex | Knex.Transaction, endpointId: string, key: Buffer, now: Date): Promise<string> {
  const secret = newSigningSecret();
  await db('webhook_secrets').insert({ endpoint_id: endpointId, secret_box: seal(key, secret), created_at: now, expires_at: null });
  return secret;
}

/** A new endpoint, enabled, and its first signing secret (returned: the one time it is shown). */
export async function createWebhookEndpoint(
  db: Knex | Knex.Transaction,
  input: { accountId: string; mode: Mode; url: string; eventTypes: string[] | null; key: Buffer; now: Date },
): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
  const [endpoint] = (await db('webhook_endpoints')
    .insert({
      id: newId('webhookEndpoint', input.now.getTime()),
      account_id: input.accountId,
      mode: input.mode,
      url: input.url,
      enabled: true,
      event_types: input.eventTypes,
      created_at: input.now,
      updated_at: input.now,
    })
    .returning('*')) as WebhookEndpointRow[];
  const secret = await addSecret(db, endpoint!.id, input.key, input.now);
  return { endpoint: endpoint!, secret };
}

export async function patchWebhookEndpoint(
  db: Knex | Knex.Transaction,
  id: string,
  changes: { url?: string; enabled?: boolean; eventTypes?: string[] | null },
  now: Date,
): Promise<WebhookEndpointRow> {
  const patch: Record<string, unknown> = { updated_at: now };
  if (changes.url !== undefined) patch.url = changes.url;
  if (changes.enabled !== undefined) patch.enabled = changes.enabled;
  if (changes.eventTypes !== undefined) patch.event_types = changes.eventTypes;
  const [row] = (await db('webhook_endpoints').where({ id }).update(patch).returning('*')) as WebhookEndpointRow[];
  return row!;
}

/**
 * A new secret; the current ones keep signing for 24 hours (an already expiring one keeps its end).
 * Two statements: run it in a transaction.
 */
export async function replaceSigningSecret(db: Knex | Knex.Transaction, endpointId: string, key: Buffer, now: Date): Promise<string> {
  await db('webhook_secrets')
    .where({ endpoint_id: endpointId })
    .whereNull('expires_at')
    .update({ expires_at: new Date(now.getTime() + ROTATION_OVERLAP_MS) });
  return addSecret(db, endpointId, key, now);
}

export async function findWebhookEndpoint(db: Knex | Knex.Transaction, id: string): Promise<WebhookEndpointRow | undefined> {
  return (await db('webhook_endpoints').where({ id }).first()) as WebhookEndpointRow | undefined;
}

export function webhookEndpointsQuery(db: Knex | Knex.Transaction, scope: { accountId: string; mode: Mode }): Knex.QueryBuilder {
  return db<WebhookEndpointRow>('webhook_endpoints').where({ account_id: scope.accountId, mode: scope.mode });
}

/** Every endpoint of an account, of both modes, newest first (the operator's list: a handful). */
export async function webhookEndpointsOfAccount(db: Knex | Knex.Transaction, accountId: string): Promise<WebhookEndpointRow[]> {
  return (await db('webhook_endpoints').where({ account_id: accountId }).orderBy('id', 'desc')) as WebhookEndpointRow[];
}

export type EndpointRoute = Pick<WebhookEndpointRow, 'id' | 'account_id' | 'mode' | 'event_types'>;

/** The enabled endpoints of these accounts and modes, in id order: where their events may go. */
export async function enabledEndpointsOf(db: Knex | Knex.Transaction, scopes: readonly { accountId: string; mode: Mode }[]): Promise<EndpointRoute[]> {
  const distinct = new Map(scopes.map((s) => [`${s.accountId}\u0000${s.mode}`, [s.accountId, s.mode]]));
  return (await db('webhook_endpoints')
    .where({ enabled: true })
    .whereIn(['account_id', 'mode'], [...distinct.values()])
    .orderBy('id')
    .select('id', 'account_id', 'mode', 'event_types')) as EndpointRoute[];
}
