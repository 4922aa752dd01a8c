// The spec's Idempotency-Key semantics, scoped to account and mode: the same key and request
// within 24 hours replays the first answer (status, body, `Idempotent-Replayed: true`); another
// request with the key is 409 idempotency_key_reused; while the first still runs, 409
// idempotency_key_in_progress; a failed request does not consume its key.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Next } from 'koa';
import { ApiError } from '../../domain/errors';
import type { Clock } from '../../domain/clock';
import { claimKey, completeKey, findKey, releaseKey, type KeyScope } from '../../db/idempotency-keys';
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
  return async (ctx: ApiContext, next: Next) => {
    if (route.idempotent && !KEY_PATTERN.test(ctx.get('idempotency-key'))) {
      throw new ApiError(
        'idempotency_key_missing',
        'This write needs an Idempotency-Key header: 8 to 255 letters, digits, "-", "_", ":" or ".".',
      );
    }
    return next();
  };
}

/** Runs `work` at most once per key: its answer is stored inside its own transaction. */
export async function runIdempotently(
  ctx: ApiContext,
  deps: { db: Knex; clock: Clock },
  inTransaction: <T>(work: (trx: Knex.Transaction) => Promise<T>) => Promise<T>,
  work: (trx: Knex.Transaction) => Promise<HandlerResult>,
): Promise<{ result: HandlerResult; replayed: boolean; json?: string }> {
  const caller = ctx.state.caller!;
  const scope: KeyScope = { accountId: caller.account.id, mode: caller.mode, key: ctx.get('idempotency-key') };
  const fingerprint = createHash('sha256')
    .update(`${ctx.method} ${ctx.path}\n${canonicalJson(ctx.state.body ?? {})}`)
    .digest('hex');
  // A key released by a failed request between our claim and our read is simply claimed again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const lockToken = await claimKey(deps.db, scope, fingerprint, deps.clock.now());
    if (lockToken !== null) {
      try {
        // The body is serialised once: stored here, and sent as it is.
        let json: string | undefined;
        const result = await inTransaction(async (trx) => {
          const answer = await work(trx);
          if (answer.status >= 200 && answer.status < 300) {
            json = JSON.stringify(answer.body);
            await completeKey(trx, scope, lockToken, answer.status, json);
          }
          return answer;
        });
        if (result.status < 200 || result.status >= 300) await releaseKey(deps.db, scope, lockToken);
        return { result, replayed: false, json };
      } catch (err) {
        await releaseKey(deps.db, scope, lockToken);
        throw err;
      }
    }
    const stored = await findKey(deps.db, scope);
    if (!stored) continue;
    if (stored.fingerprint !== fingerprint) {
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used in the last 24 hours for a different request (method, path or body). Use a new key for a new request.');
    }
    if (stored.responseStatus === null) {
      throw new ApiError('idempotency_key_in_progress', 'The first request with this Idempotency-Key is still running. Retry after a short wait.');
    }
    // The first answer's bytes, as they were sent.
    const json = stored.responseBody ?? undefined;
    return { result: { status: stored.responseStatus, body: json === undefined ? null : (JSON.parse(json) as unknown) }, replayed: true, json };
  }
  throw new ApiError('idempotency_key_in_progress', 'The Idempotency-Key is changing hands. Retry after a short wait.');
}
