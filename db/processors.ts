// The card processor set for an account's mode (migration 027): the gateway's URL and merchant id,
// and its secrets sealed with the secret key, opened only to talk to the gateway.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import { open, seal } from './secret-box';

export interface CardProcessorRow {
  account_id: string;
  mode: Mode;
  processor: 'mastercard_gateway';
  gateway_url: string;
  merchant_id: string;
  api_password_box: string;
  notification_secret_box: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A gateway profile as the adapter takes it, its secrets opened. */
export interface GatewayProfile {
  gatewayUrl: string;
  merchantId: string;
  apiPassword: string;
  notificationSecret: string | null;
}

export interface GatewayProfileInput extends GatewayProfile {
  accountId: string;
  mode: Mode;
}

/** Sets (or replaces) the mode's processor. */
export async function upsertCardProcessor(db: Knex | Knex.Transaction, input: GatewayProfileInput, key: Buffer, now: Date): Promise<CardProcessorRow> {
  const row = {
    account_id: input.accountId,
    mode: input.mode,
    processor: 'mastercard_gateway',
    gateway_url: input.gatewayUrl,
    merchant_id: input.merchantId,
    api_password_box: seal(key, input.apiPassword),
    notification_secret_box: input.notificationSecret === null ? null : seal(key, input.notificationSecret),
    created_at: now,
    updated_at: now,
  };
  const [saved] = (await db('card_processors').insert(row).onConflict(['account_id', 'mode']).merge(['processor', 'gateway_url', 'merchant_id', 'api_password_box', 'notification_secret_box', 'updated_at']).returning('*')) as CardProcessorRow[];
  return saved!;
}

export async function findCardProcessor(db: Knex | Knex.Transaction, accountId: string, mode: Mode): Promise<CardProcessorRow | undefined> {
  return (await db('card_processors').where({ account_id: accountId, mode }).first()) as CardProcessorRow | undefined;
}

/** The processors set for these accounts and modes (those set), in one statement. */
export async function cardProcessorsOf(db: Knex | Knex.Transaction, pairs: readonly { accountId: string; mode: Mode }[]): Promise<CardProcessorRow[]> {
  if (pairs.length === 0) return [];
  return (await db('card_processors').whereIn(['account_id', 'mode'], pairs.map((p) => [p.accountId, p.mode]))) as CardProcessorRow[];
}

/** Test mode's first, then live's. */
export async function cardProcessorsOfAccount(db: Knex | Knex.Transaction, accountId: string): Promise<CardProcessorRow[]> {
  return (await db('card_processors').where({ account_id: accountId }).orderBy('mode', 'desc')) as CardProcessorRow[];
}

export function openedProfile(row: CardProcessorRow, key: Buffer): GatewayProfile {
  return {
    gatewayUrl: row.gateway_url,
    merchantId: row.merchant_id,
    apiPassword: open(key, row.api_password_box),
    notificationSecret: row.notification_secret_box === null ? null : open(key, row.notification_secret_box),
  };
}
