// Mounts every declared route on one platform chain, in this order: rate limit, authentication
// and authorisation, path ids, JSON body, Idempotency-Key, validation, then the handler.
import Router, { type RouterMiddleware } from '@koa/router';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config';
import type { OrchestrationPort } from '../orchestration';
import type { Clock } from '../domain/clock';
import type { ActiveKeys } from '../db/active-key-cache';
import { ApiError } from '../domain/errors';
import { authenticate } from './platform/authenticate';
import { jsonBody } from './platform/body';
import type { ApiContext, ApiState } from './platform/context';
import { execute } from './platform/execute';
import { requireIdempotencyKey } from './platform/idempotency';
import { rateLimit } from './platform/rate-limit';
import type { RouteSpec } from './platform/route';
import { validateInput } from './platform/validation';

export interface RouterDeps {
  db: Knex;
  clock: Clock;
  config: Config;
  log: Logger;
  limiter: RateLimiterAbstract;
  activeKeys: ActiveKeys;
  orchestration: OrchestrationPort;
}

function koaPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

function pathParams(route: RouteSpec) {
  return async (ctx: ApiContext & { params: Record<string, string> }, next: () => Promise<unknown>) => {
    for (const [name, pattern] of Object.entries(route.params ?? {})) {
      if (!new RegExp(pattern).test(ctx.params[name] ?? '')) {
        throw new ApiError('NOT_FOUND', `No object with id ${ctx.params[name] ?? ''}.`);
      }
    }
    ctx.state.params = ctx.params;
    return next();
  };
}

export function apiRouter(routes: readonly RouteSpec[], deps: RouterDeps): Router<ApiState> {
  const router = new Router<ApiState>({ strict: true, sensitive: true });
  // Fixed segments before parameters, so /v1/invoices/upcoming is never read as an id.
  const ordered = [...routes].sort((a, b) => (a.path.match(/\{/g)?.length ?? 0) - (b.path.match(/\{/g)?.length ?? 0));
  for (const route of ordered) {
    router.register(koaPath(route.path), [route.method], [
      rateLimit(deps.limiter, `${route.method} ${route.path}`),
      authenticate(route, deps),
      pathParams(route),
      jsonBody(route),
      requireIdempotencyKey(route),
      validateInput(route),
      execute(route, deps),
    ] as RouterMiddleware<ApiState>[]);
  }
  return router;
}

/** Which CORS policy applies to a path: that of its routes, or none for paths outside the API. */
export function corsPolicyFor(routes: readonly RouteSpec[]): (path: string) => 'any' | 'own' | null {
  const matchers = routes.map((r) => ({
    regex: new RegExp(`^${r.path.replace(/\{\w+\}/g, '[^/]+')}$`),
    policy: r.cors ?? 'own',
  }));
  return (path) => {
    const found = matchers.filter((m) => m.regex.test(path));
    if (found.length === 0) return path.startsWith('/v1/') ? 'own' : null;
    return found.some((m) => m.policy === 'any') ? 'any' : 'own';
  };
}
