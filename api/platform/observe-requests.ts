// One log line and one metrics observation per request, once its answer is decided: trace id,
// method, route template, status, duration, and the account and mode when a key authenticated it.
// Only the route template is logged and labelled, never the path as sent (ids, page tokens) nor
// its query string nor a body, so neither a secret nor an unbounded label value gets out.
// Operators' probes (health, metrics) log at debug: a probe every few seconds would drown the rest.
import { performance } from 'node:perf_hooks';
import type { Next } from 'koa';
import type { Logger } from 'pino';
import { RouteMetrics } from '../../config/metrics';
import type { ApiContext } from './context';

/** What a path that no route knows is labelled (its path as sent would be unbounded). */
export const UNMATCHED_ROUTE = 'unmatched';

export function observeRequests(options: { log: Logger; apiPaths: readonly string[]; probePaths: readonly string[] }) {
  const { log } = options;
  // Made up front for every API route, so the hot path only looks its template up.
  const apiRoutes = new Map(options.apiPaths.map((path) => [path, new RouteMetrics(path)]));
  // Other routers' templates (pages, probes) are found as they answer; there are a few dozen.
  const otherRoutes = new Map<string, RouteMetrics>();
  const probes = new Set(options.probePaths);
  const routeOf = (ctx: ApiContext): RouteMetrics => {
    // The API's router leaves the route that answered (none for a path or method it does not know).
    if (ctx.path.startsWith('/v1/')) return apiRoutes.get(ctx.state.route?.path ?? '') ?? routeMetrics(otherRoutes, UNMATCHED_ROUTE);
    // @koa/router leaves the template of the route that answered here.
    const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
    return routeMetrics(otherRoutes, typeof matched === 'string' ? matched : UNMATCHED_ROUTE);
  };
  const observe = (ctx: ApiContext, ms: number) => {
    const route = routeOf(ctx);
    route.observe(ctx.method, ctx.status, ms / 1000);
    const level = probes.has(route.route) ? 'debug' : 'info';
    if (!log.isLevelEnabled(level)) return;
    const caller = ctx.state.caller;
    const line = {
      traceId: ctx.state.traceId,
      method: ctx.method,
      route: route.route,
      status: ctx.status,
      durationMs: Math.round(ms * 10) / 10,
      ...(caller ? { accountId: caller.account.id, mode: caller.mode } : {}),
    };
    log[level](line, 'request');
  };
  return async (ctx: ApiContext, next: Next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      observe(ctx, performance.now() - started);
    }
  };
}

function routeMetrics(routes: Map<string, RouteMetrics>, route: string): RouteMetrics {
  let metrics = routes.get(route);
  if (metrics === undefined) {
    metrics = new RouteMetrics(route);
    routes.set(route, metrics);
  }
  return metrics;
}
