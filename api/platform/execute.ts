// The last link: runs the route's handler (in a transaction for writes unless the write is one
// statement, once per Idempotency-Key where the route is IK), renders its answer, and only then
// runs the after-commit effects.
import type { Knex } from 'knex';
import type { Next } from 'koa';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import type { Config } from '../../config';
import type { OrchestrationPort } from '../../orchestration';
import type { ApiContext } from './context';
import type { KeyToRecord } from '../../db/idempotency-keys';
import { claimThenRun, recordInStatement, runIdempotently } from './idempotency';
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
    const run = (db: Knex | Knex.Transaction, idempotencyKey?: KeyToRecord): Promise<HandlerResult> =>
      route.handler({
        // Public routes have no caller and do not read it.
        caller: ctx.state.caller as Caller,
        body: ctx.state.body,
        query: ctx.state.query,
        params: ctx.state.params ?? {},
        db,
        idempotencyKey,
        clock: deps.clock,
        config: deps.config,
        workflows: deps.orchestration,
        afterCommit: (effect) => effects.push(effect),
      });
    let result: HandlerResult;
    let json: string | undefined;
    if (!isWrite(route.method)) {
      result = await run(deps.db);
    } else if (route.idempotent) {
      const attempt =
        route.transaction === 'statement' ? recordInStatement(deps.db, (key) => run(deps.db, key)) : claimThenRun(deps.db, run);
      const outcome = await runIdempotently(ctx, deps, attempt);
      ({ result, json } = outcome);
      if (outcome.replayed) ctx.set('Idempotent-Replayed', 'true');
    } else {
      result = await (route.transaction === 'statement' ? run(deps.db) : deps.db.transaction((trx) => run(trx)));
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
