// Idempotency records, scoped to (account, mode, key). Claiming is one statement that either
// inserts the key, takes over a key older than 24 hours (the key counts as new) or one whose
// request died without finishing, or returns nothing because another request holds the key. A
// request claims its key before it runs and stores its answer in its transaction; a write done in
// one statement claims the key with its answer inside that statement (claimKeySql).
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

/** A request's claim on its key: the scope, the request's fingerprint and the time it arrived. */
export interface KeyToRecord {
  scope: KeyScope;
  fingerprint: string;
  now: Date;
}

export interface StoredKey {
  fingerprint: string;
  responseStatus: number | null;
  responseBody: string | null;
}

/**
 * The claim as SQL, its parameters numbered from `first` (see claimParams). It inserts the key, or
 * takes over one older than the window or abandoned by its request, and yields a row if the key is
 * now ours. `from` makes it conditional: a write done in one statement claims its key `from` the
 * CTE that decides whether the write happens.
 */
export function claimKeySql(first: number, from = ''): string {
  const $ = (n: number) => `$${first + n - 1}`;
  return `insert into idempotency_keys (account_id, mode, key, fingerprint, lock_token, locked_at, created_at, response_status, response_body)
     select ${$(1)}::text, ${$(2)}::text, ${$(3)}::text, ${$(4)}::text, ${$(5)}::text, ${$(6)}::timestamptz, ${$(6)}::timestamptz, ${$(9)}::int, ${$(10)}::text ${from}
     on conflict (account_id, mode, key) do update
       set fingerprint = excluded.fingerprint, lock_token = excluded.lock_token, locked_at = excluded.locked_at,
           created_at = excluded.created_at, response_status = excluded.response_status, response_body = excluded.response_body
       where idempotency_keys.created_at <= ${$(7)}
          or (idempotency_keys.response_status is null and idempotency_keys.locked_at <= ${$(8)}
              and idempotency_keys.fingerprint = excluded.fingerprint)
     returning 1`;
}

/**
 * The claim's ten parameters. A request that runs in a transaction claims with no answer and
 * completes the key when done; a write done in one statement claims with its answer (KeyRecord).
 */
export function claimParams(key: KeyToRecord, lockToken: string, answer: KeyRecord['answer'] | null): unknown[] {
  const { scope, fingerprint, now } = key;
  return [
    scope.accountId,
    scope.mode,
    scope.key,
    fingerprint,
    lockToken,
    now,
    new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS),
    new Date(now.getTime() - ABANDONED_AFTER_MS),
    answer?.status ?? null,
    answer?.json ?? null,
  ];
}

/** Claims the key for a request about to run: its lock token, or null if another request holds it. */
export async function claimKey(db: Knex, key: KeyToRecord): Promise<string | null> {
  const lockToken = randomUUID();
  const rows = await sql(db, claimKeySql(1), claimParams(key, lockToken, null));
  return rows.length > 0 ? lockToken : null;
}

/** What a write done in one statement records with its key: the request and its answer. */
export interface KeyRecord {
  key: KeyToRecord;
  answer: { status: number; json: string };
}

/** A write done in one statement found its key held: the platform answers from the key's record. */
export class KeyTaken extends Error {
  constructor(scope: KeyScope) {
    super(`idempotency key ${scope.key} is held by another request`);
  }
}

/** The key's record, unless it is older than the window (then the key counts as new). */
export async function findKey(db: Knex, scope: KeyScope, now: Date): Promise<StoredKey | null> {
  const [row] = await sql<{ fingerprint: string; response_status: number | null; response_body: string | null }>(
    db,
    `select fingerprint, response_status, response_body from idempotency_keys
     where account_id = $1 and mode = $2 and key = $3 and created_at > $4`,
    [scope.accountId, scope.mode, scope.key, new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS)],
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
