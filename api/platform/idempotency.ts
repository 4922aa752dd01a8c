// The spec's Idempotency-Key semantics, scoped to account and mode: the same key and request
// within 24 hours replays the first answer (status, body, `Idempotent-Replayed: true`); another
// request with the key is 409 idempotency_key_reused; while the first still runs, 409
// idempotency_key_in_progress; a failed request does not consume its key.
import { hash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Next } from 'koa';
import { ApiError } from '../../domain/errors';
import type { Clock } from '../../domain/clock';
import { claimKey, completeKey, findKey, KeyTaken, releaseKey, type KeyToRecord, type StoredKey } from '../../db/idempotency-keys';
import type { ApiContext } from './context';
import type { HandlerResult, RouteSpec } from './route';

const KEY_PATTERN = /^[A-Za-z0-9_\-:.]{8,255}$/;

/** Keys with the same JSON content are the same request, whatever the spacing or key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

export function requireIdempotencyKey(route: RouteSpec) {
  // Not async (see trace-id.ts).
  return (ctx: ApiContext, next: Next) => {
    if (route.idempotent && !KEY_PATTERN.test(ctx.get('idempotency-key'))) {
      throw new ApiError(
        'idempotency_key_missing',
        'This write needs an Idempotency-Key header: 8 to 255 letters, digits, "-", "_", ":" or ".".',
      );
    }
    return next();
  };
}

/**
 * One go at the request: its answer, or `held` when another request holds the key, with the
 * key's record when the attempt has read it already (so it is not read twice).
 */
export type Attempt = (key: KeyToRecord) => Promise<{ result: HandlerResult; json?: string } | { held: StoredKey | null }>;

/** Runs the request at most once per key; a held key answers from its record. */
export async function runIdempotently(
  ctx: ApiContext,
  deps: { db: Knex; clock: Clock },
  attempt: Attempt,
): Promise<{ result: HandlerResult; replayed: boolean; json?: string }> {
  const caller = ctx.state.caller!;
  const fingerprint = hash('sha256', `${ctx.method} ${ctx.path}\n${canonicalJson(ctx.state.body ?? {})}`);
  const key: KeyToRecord = { scope: { accountId: caller.account.id, mode: caller.mode, key: ctx.get('idempotency-key') }, fingerprint, now: deps.clock.now() };
  // A key released by a failed request between our claim and our read is simply claimed again.
  for (let round = 0; round < 3; round++) {
    const ran = await attempt(key);
    if (!('held' in ran)) return { ...ran, replayed: false };
    const stored = ran.held ?? (await findKey(deps.db, key.scope, key.now));
    if (!stored) continue;
    if (stored.fingerprint !== fingerprint) {
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used in the last 24 hours for a different request (method, path or body). Use a new key for a new request.');
    }
    if (stored.responseStatus === null) {
      throw new ApiError('idempotency_key_in_progress', 'The first request with this Idempotency-Key is still running. Retry after a short wait.');
    }
    // The first answer's bytes, as they were sent.
    const json = stored.responseBody ?? undefined;
    return { result: { status: stored.responseStatus, body: null }, replayed: true, json };
  }
  throw new ApiError('idempotency_key_in_progress', 'The Idempotency-Key is changing hands. Retry after a short wait.');
}

/**
 * Claims the key, then runs `work` in a transaction that stores its answer with its changes; or,
 * for work done in steps that commit on their own, runs it and then stores its answer. A failed
 * request releases the key.
 */
export function claimThenRun(db: Knex, work: (db: Knex | Knex.Transaction) => Promise<HandlerResult>, how: 'transaction' | 'steps' = 'transaction'): Attempt {
  return async (key) => {
    const lockToken = await claimKey(db, key);
    if (lockToken === null) return { held: null };
    try {
      // The body is serialised once: stored here, and sent as it is.
      let json: string | undefined;
      const answered = async (trx: Knex.Transaction, answer: HandlerResult) => {
        if (answer.status >= 200 && answer.status < 300) {
          json = JSON.stringify(answer.body);
          await completeKey(trx, key.scope, lockToken, answer.status, json);
        }
        return answer;
      };
      const result =
        how === 'steps'
          ? await work(db).then((answer) => db.transaction((trx) => answered(trx, answer)))
          : await db.transaction(async (trx) => answered(trx, await work(trx)));
      if (result.status < 200 || result.status >= 300) await releaseKey(db, key.scope, lockToken);
      return { result, json };
    } catch (err) {
      await releaseKey(db, key.scope, lockToken);
      throw err;
    }
  };
}

/**
 * For a write done in one statement that records its own key with its answer (claimKeySql): no
 * claim beforehand, no transaction. A request refused before its write answers from a held key
 * first, as it would have had the key been claimed before it ran.
 */
export function recordInStatement(db: Knex, work: (key: KeyToRecord) => Promise<HandlerResult>): Attempt {
  return async (key) => {
    try {
      const result = await work(key);
      return { result, json: result.json };
    } catch (err) {
      if (err instanceof KeyTaken) return { held: null };
      const stored = err instanceof ApiError ? await findKey(db, key.scope, key.now) : null;
      if (stored !== null) return { held: stored };
      throw err;
    }
  };
}
