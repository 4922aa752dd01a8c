// Mounts every declared route on one platform chain, in this order: rate limit, authentication
// and authorisation, path ids, JSON body, Idempotency-Key, validation, then the handler. Each
// chain is composed once at start; a request finds its route by a lookup for fixed paths.
import type { Next } from 'koa';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { ServiceDeps } from '../services/context';
import type { ActiveKeys } from '../db/active-key-cache';
import { ApiError } from '../domain/errors';
import { authenticate } from './platform/authenticate';
import { jsonBody } from './platform/body';
import type { ApiContext } from './platform/context';
import { execute } from './platform/execute';
import { requireIdempotencyKey } from './platform/idempotency';
import { rateLimit } from './platform/rate-limit';
import type { RouteSpec } from './platform/route';
import { validateInput } from './platform/validation';

export interface RouterDeps extends ServiceDeps {
  limiter: RateLimiterAbstract;
  activeKeys: ActiveKeys;
}

/**
 * The first template a path matches whose value `accept`s: fixed paths (a lookup) first, then
 * those with `{name}` segments, with the segments as parameters.
 */
export function pathMatcher<T>(entries: readonly { path: string; value: T }[]): (path: string, accept: (value: T) => boolean) => { value: T; params: Record<string, string> } | undefined {
  const fixed = new Map<string, T[]>();
  const templated: { regex: RegExp; names: string[]; value: T }[] = [];
  // Fixed segments before parameters, so /v1/invoices/upcoming is never read as an id.
  const ordered = [...entries].sort((a, b) => (a.path.match(/\{/g)?.length ?? 0) - (b.path.match(/\{/g)?.length ?? 0));
  for (const { path, value } of ordered) {
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    if (names.length === 0) fixed.set(path, [...(fixed.get(path) ?? []), value]);
    else templated.push({ regex: new RegExp(`^${path.replace(/\{\w+\}/g, '([^/]+)')}$`), names, value });
  }
  return (path, accept) => {
    const value = fixed.get(path)?.find(accept);
    if (value !== undefined) return { value, params: {} };
    for (const entry of templated) {
      if (!accept(entry.value)) continue;
      const match = entry.regex.exec(path);
      if (match) return { value: entry.value, params: Object.fromEntries(entry.names.map((name, i) => [name, decodeSegment(match[i + 1]!)])) };
    }
    return undefined;
  };
}

/** A path segment decoded; one that does not decode stays as sent (and then matches no id). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function pathParams(route: RouteSpec) {
  const patterns = Object.entries(route.params ?? {}).map(([name, pattern]) => [name, new RegExp(pattern)] as const);
  // Not async (see platform/trace-id.ts).
  return (ctx: ApiContext, next: Next) => {
    const params = ctx.state.params ?? {};
    for (const [name, pattern] of patterns) {
      if (!pattern.test(params[name] ?? '')) throw new ApiError('NOT_FOUND', `No object with id ${params[name] ?? ''}.`);
    }
    return next();
  };
}

export type Middleware = (ctx: ApiContext, next: Next) => Promise<unknown>;

/** The middleware run in order, composed once rather than on every request. */
export function chain(middleware: Middleware[]): Middleware {
  return (ctx, next) => {
    const step = (i: number): Promise<unknown> => (i < middleware.length ? middleware[i]!(ctx, () => step(i + 1)) : next());
    return step(0);
  };
}

/**
 * The API: each route's chain, found by method and path (exact letter case, no trailing slash).
 * GET routes answer HEAD too. A path or method that is no route goes on to the next middleware.
 */
export function apiRouter(routes: readonly RouteSpec[], deps: RouterDeps): Middleware {
  const match = pathMatcher(
    routes.map((route) => ({
      path: route.path,
      value: {
        route,
        methods: route.method === 'GET' ? ['GET', 'HEAD'] : [route.method],
        run: chain([
          rateLimit(deps.limiter, `${route.method} ${route.path}`),
          authenticate(route, deps),
          pathParams(route),
          jsonBody(route),
          requireIdempotencyKey(route),
          validateInput(route),
          execute(route, deps),
        ] as Middleware[]),
      },
    })),
  );
  return (ctx, next) => {
    const found = match(ctx.path, (route) => route.methods.includes(ctx.method));
    if (!found) return next();
    ctx.state.params = found.params;
    ctx.state.route = found.value.route;
    return found.value.run(ctx, next);
  };
}

/** Which CORS policy applies to a path: that of its routes, or none for paths outside the API. */
export function corsPolicyFor(routes: readonly RouteSpec[]): (path: string) => 'any' | 'own' | null {
  const match = pathMatcher(routes.map((r) => ({ path: r.path, value: r.cors ?? 'own' })));
  return (path) => {
    if (match(path, (policy) => policy === 'any')) return 'any';
    return path.startsWith('/v1/') || match(path, () => true) ? 'own' : null;
  };
}
