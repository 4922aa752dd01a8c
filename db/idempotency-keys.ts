// Idempotency records, scoped to (account, mode, key). Claiming is one statement that either
// inserts the key, takes over a key older than 24 hours (the key counts as new) or one whose
// request died without finishing, or returns nothing because another request holds the key.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { sql } from './sql';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A request holding a key this long without finishing is taken to have died. */
export const ABANDONED_AFTER_MS = 60 * 1000;

export interface KeyScope {
  accountId: string;
  mode: string;
  key: string;
}

export interface StoredKey {
  fingerprint: string;
  responseStatus: number | null;
  responseBody: string | null;
}

export async function claimKey(db: Knex, scope: KeyScope, fingerprint: string, now: Date): Promise<string | null> {
  const lockToken = randomUUID();
  const rows = await sql(
    db,
    `insert into idempotency_keys (account_id, mode, key, fingerprint, lock_token, locked_at, created_at)
     values ($1, $2, $3, $4, $5, $6, $6)
     on conflict (account_id, mode, key) do update
       set fingerprint = excluded.fingerprint, lock_token = excluded.lock_token, locked_at = excluded.locked_at,
           created_at = excluded.created_at, response_status = null, response_body = null
       where idempotency_keys.created_at <= $7
          or (idempotency_keys.response_status is null and idempotency_keys.locked_at <= $8
              and idempotency_keys.fingerprint = excluded.fingerprint)
     returning lock_token`,
    [
      scope.accountId,
      scope.mode,
      scope.key,
      fingerprint,
      lockToken,
      now,
      new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS),
      new Date(now.getTime() - ABANDONED_AFTER_MS),
    ],
  );
  return rows.length > 0 ? lockToken : null;
}

export async function findKey(db: Knex, scope: KeyScope): Promise<StoredKey | null> {
  const [row] = await sql<{ fingerprint: string; response_status: number | null; response_body: string | null }>(
    db,
    'select fingerprint, response_status, response_body from idempotency_keys where account_id = $1 and mode = $2 and key = $3',
    [scope.accountId, scope.mode, scope.key],
  );
  return row ? { fingerprint: row.fingerprint, responseStatus: row.response_status, responseBody: row.response_body } : null;
}

/**
 * Stores the answer in the request's own transaction, so the answer and the changes it reports
 * commit together. Fails if the key was taken over meanwhile, which rolls the request back.
 */
export async function completeKey(trx: Knex.Transaction, scope: KeyScope, lockToken: string, status: number, body: string): Promise<void> {
  const updated = await sql(
    trx,
    `update idempotency_keys set response_status = $5, response_body = $6
     where account_id = $1 and mode = $2 and key = $3 and lock_token = $4 returning 1`,
    [scope.accountId, scope.mode, scope.key, lockToken, status, body],
  );
  if (updated.length !== 1) throw new Error(`idempotency key ${scope.key} was taken over while its request ran`);
}

/** A failed request does not consume its key. */
export async function releaseKey(db: Knex, scope: KeyScope, lockToken: string): Promise<void> {
  await db('idempotency_keys')
    .where({ account_id: scope.accountId, mode: scope.mode, key: scope.key, lock_token: lockToken })
    .whereNull('response_status')
    .delete();
}

/** Forgets keys past the window (they would count as new anyway). */
export async function purgeExpiredKeys(db: Knex, now: Date): Promise<number> {
  return db('idempotency_keys').where('created_at', '<=', new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS)).delete();
}
