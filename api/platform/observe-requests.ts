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
  const apiRoute = templateOf(options.apiPaths, (path) => new RouteMetrics(path));
  // Other routers' templates (pages, probes) are found as they answer; there are a few dozen.
  const otherRoutes = new Map<string, RouteMetrics>();
  const probes = new Set(options.probePaths);
  const routeOf = (ctx: ApiContext): RouteMetrics => {
    if (ctx.path.startsWith('/v1/')) return apiRoute(ctx.path) ?? routeMetrics(otherRoutes, UNMATCHED_ROUTE);
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

interface TemplateNode<T> {
  fixed: Map<string, TemplateNode<T>>;
  param?: TemplateNode<T>;
  value?: T;
}

/**
 * The value of the template (`/v1/checkouts/{id}`) a path matches, a fixed segment before a
 * parameter, as the API's router matches. A tree of segments rather than the router's list of
 * patterns: the router's match is not ours to reuse, and a second pass over its patterns would cost
 * a microsecond on every request.
 */
export function templateOf<T>(templates: readonly string[], valueOf: (template: string) => T): (path: string) => T | undefined {
  const node = (): TemplateNode<T> => ({ fixed: new Map() });
  const root = node();
  for (const template of templates) {
    let at = root;
    for (const segment of template.split('/').slice(1)) {
      if (/^\{\w+\}$/.test(segment)) {
        at = at.param ??= node();
      } else {
        let next = at.fixed.get(segment);
        if (next === undefined) at.fixed.set(segment, (next = node()));
        at = next;
      }
    }
    at.value ??= valueOf(template);
  }
  const find = (at: TemplateNode<T>, path: string, from: number): T | undefined => {
    if (from > path.length) return at.value;
    const end = path.indexOf('/', from);
    const segment = end === -1 ? path.slice(from) : path.slice(from, end);
    const rest = end === -1 ? path.length + 1 : end + 1;
    const fixed = at.fixed.get(segment);
    const found = fixed === undefined ? undefined : find(fixed, path, rest);
    if (found !== undefined) return found;
    return segment !== '' && at.param !== undefined ? find(at.param, path, rest) : undefined;
  };
  return (path) => (path.startsWith('/') ? find(root, path, 1) : undefined);
}
