// The last link: runs the route's handler (in a transaction for writes, once per Idempotency-Key
// where the route is IK), renders its answer, and only then runs the after-commit effects.
import type { Knex } from 'knex';
import type { Next } from 'koa';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import type { Config } from '../../config';
import type { OrchestrationPort } from '../../orchestration';
import type { ApiContext } from './context';
import { sqlTransaction } from '../../db/sql';
import { runIdempotently } from './idempotency';
import { isWrite, type Caller, type HandlerResult, type RouteSpec } from './route';

export interface ExecuteDeps {
  db: Knex;
  clock: Clock;
  config: Config;
  log: Logger;
  orchestration: OrchestrationPort;
}

export function execute(route: RouteSpec, deps: ExecuteDeps) {
  return async (ctx: ApiContext, _next: Next) => {
    const effects: (() => Promise<void>)[] = [];
    const run = (db: Knex | Knex.Transaction): Promise<HandlerResult> =>
      route.handler({
        // Public routes have no caller and do not read it.
        caller: ctx.state.caller as Caller,
        body: ctx.state.body,
        query: ctx.state.query,
        params: ctx.state.params ?? {},
        db,
        clock: deps.clock,
        config: deps.config,
        workflows: deps.orchestration,
        afterCommit: (effect) => effects.push(effect),
      });
    const inTransaction = <T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> =>
      route.transaction === 'sql' ? sqlTransaction(deps.db, work) : deps.db.transaction(work);
    let result: HandlerResult;
    let json: string | undefined;
    if (!isWrite(route.method)) {
      result = await run(deps.db);
    } else if (route.idempotent) {
      const outcome = await runIdempotently(ctx, deps, inTransaction, run);
      ({ result, json } = outcome);
      if (outcome.replayed) ctx.set('Idempotent-Replayed', 'true');
    } else {
      result = await inTransaction(run);
    }
    ctx.status = result.status;
    if (json === undefined) {
      ctx.body = result.body;
    } else {
      ctx.type = 'application/json';
      ctx.body = json;
    }
    for (const effect of effects) {
      // The change is committed; a failed effect is recovered from the database (boot-time
      // restart, the event outbox), so it is logged rather than turned into an error answer.
      await effect().catch((err: unknown) => deps.log.error({ err, traceId: ctx.state.traceId }, 'after-commit effect failed'));
    }
  };
}
