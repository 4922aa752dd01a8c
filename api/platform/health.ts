// Operators' probes, outside the API (no key, no rate limit, not in the OpenAPI document):
// GET /healthz answers 200 while the process serves; GET /readyz answers 200 only when the
// database answers, every migration is applied and the orchestration answers, else 503 naming the
// check that failed. A check's detail (a host name, a driver's message) goes to the log, not the
// answer, since the probe is unauthenticated.
import Router from '@koa/router';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { migrationSource } from '../../db/migrations';
import type { OrchestrationPort } from '../../orchestration';
import type { ApiState } from './context';

/** Resolves when the part is ready; rejects saying why, in words fit for the probe's answer. */
export type ReadinessCheck = () => Promise<void>;

/** A check that has not answered after this long fails: a probe must answer before its own timeout. */
export const CHECK_TIMEOUT_MS = 2_000;

export class NotReady extends Error {}

/** The database answers a query. */
export function databaseCheck(db: Knex): ReadinessCheck {
  return async () => {
    try {
      await db.raw('select 1');
    } catch (err) {
      throw new NotReady('the database does not answer', { cause: err });
    }
  };
}

/** Every migration this build knows is recorded as applied (read only: knex's own status call may create its tables). */
export function migrationsCheck(db: Knex): ReadinessCheck {
  return async () => {
    let applied: Set<string>;
    try {
      applied = new Set(((await db('knex_migrations').select('name')) as { name: string }[]).map((row) => row.name));
    } catch (err) {
      throw new NotReady('the migrations table cannot be read', { cause: err });
    }
    const pending = (await migrationSource.getMigrations([])).filter((name) => !applied.has(name));
    if (pending.length > 0) throw new NotReady(`migrations not applied: ${pending.join(', ')}`);
  };
}

function withTimeout(check: ReadinessCheck): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NotReady(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([check(), timeout]).finally(() => clearTimeout(timer));
}

export function healthRouter(options: { checks: Record<string, ReadinessCheck>; log: Logger }): Router<ApiState> {
  const router = new Router<ApiState>({ strict: true, sensitive: true });
  const names = Object.keys(options.checks);
  router.get('/healthz', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const outcomes = await Promise.allSettled(names.map((name) => withTimeout(options.checks[name]!)));
    const checks: Record<string, { status: 'ok' } | { status: 'failed'; message: string }> = {};
    outcomes.forEach((outcome, i) => {
      const name = names[i]!;
      if (outcome.status === 'fulfilled') {
        checks[name] = { status: 'ok' };
        return;
      }
      const err = outcome.reason as Error;
      options.log.warn({ check: name, err: err.cause ?? err }, `readiness check ${name} failed: ${err.message}`);
      checks[name] = { status: 'failed', message: err instanceof NotReady ? err.message : 'failed' };
    });
    const ready = outcomes.every((o) => o.status === 'fulfilled');
    ctx.set('Cache-Control', 'no-store');
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready', checks };
  });
  return router;
}

/**
 * The orchestration answers: a describe of an id no workflow has makes the round trip to the
 * Temporal server (its frontend and the namespace), or to the embedded engine.
 */
export function orchestrationCheck(port: OrchestrationPort): ReadinessCheck {
  return async () => {
    try {
      await port.describe('kasi-readiness-probe');
    } catch (err) {
      throw new NotReady(`the ${port.engine === 'temporal' ? 'Temporal server' : 'embedded engine'} does not answer`, { cause: err });
    }
  };
}
