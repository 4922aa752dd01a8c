// The last link: runs the route's handler (in a transaction for writes unless the write is one
// statement, once per Idempotency-Key where the route is IK), renders its answer, and only then
// runs the after-commit effects.
import type { Knex } from 'knex';
import type { Next } from 'koa';
import type { ServiceDeps } from '../../services/context';
import { runEffects, serviceContext, type Effect } from '../../services/run';
import type { ApiContext } from './context';
import type { KeyToRecord } from '../../db/idempotency-keys';
import { claimThenRun, recordInStatement, runIdempotently } from './idempotency';
import { isWrite, type Caller, type HandlerResult, type RouteSpec } from './route';

export type ExecuteDeps = ServiceDeps;

export function execute(route: RouteSpec, deps: ExecuteDeps) {
  return async (ctx: ApiContext, _next: Next) => {
    const effects: Effect[] = [];
    const run = (db: Knex | Knex.Transaction, idempotencyKey?: KeyToRecord): Promise<HandlerResult> =>
      route.handler({
        ...serviceContext(deps, db, effects),
        // Public routes have no caller and do not read it.
        caller: ctx.state.caller as Caller,
        body: ctx.state.body,
        query: ctx.state.query,
        params: ctx.state.params ?? {},
        idempotencyKey,
      });
    let result: HandlerResult;
    let json: string | undefined;
    if (!isWrite(route.method)) {
      result = await run(deps.db);
    } else if (route.idempotent) {
      const attempt =
        route.transaction === 'statement' ? recordInStatement(deps.db, (key) => run(deps.db, key)) : claimThenRun(deps.db, run, route.transaction === 'steps' ? 'steps' : 'transaction');
      const outcome = await runIdempotently(ctx, deps, attempt);
      ({ result, json } = outcome);
      if (outcome.replayed) ctx.set('Idempotent-Replayed', 'true');
    } else {
      result = await (route.transaction === 'statement' || route.transaction === 'steps' ? run(deps.db) : deps.db.transaction((trx) => run(trx)));
    }
    ctx.status = result.status;
    if (json === undefined) {
      ctx.body = result.body;
    } else {
      ctx.type = 'application/json';
      ctx.body = json;
    }
    await runEffects(effects, deps.log, { traceId: ctx.state.traceId });
  };
}
