// The Koa application: trace id, a log line and metrics, and error body on every answer, CORS,
// the operators' probes, the documentation pages, the API routes on the platform chain, and 404
// unknown_endpoint for everything else.
import Koa from 'koa';
import Router from '@koa/router';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config';
import type { OrchestrationPort } from '../orchestration';
import { systemClock, type Clock } from '../domain/clock';
import { uncachedActiveKeys, type ActiveKeys } from '../db/active-key-cache';
import { ApiError } from '../domain/errors';
import { createProcessors } from '../processor';
import { processorNotificationsRouter } from './processor-notifications';
import { sandboxRouter } from '../processor/sandbox';
import { docsSite } from './docs/docs-pages';
import { errorPage } from './docs/error-page';
import { referencePage } from './docs/reference-page';
import { openApiDocument } from './openapi/document';
import { checkoutPagesRouter } from './pages/checkout';
import { paymentLinkPagesRouter } from './pages/payment-link';
import { invoicePagesRouter } from './pages/invoice';
import { assetsRouter } from './pages/assets';
import type { ApiState } from './platform/context';
import { cors } from './platform/cors';
import { errorHandler } from './platform/errors';
import { databaseCheck, healthRouter, migrationsCheck, orchestrationCheck, type ReadinessCheck } from './platform/health';
import { metricsRouter } from './platform/metrics';
import { observeRequests } from './platform/observe-requests';
import { createRateLimiter } from './platform/rate-limit';
import type { RouteSpec } from './platform/route';
import { traceId } from './platform/trace-id';
import { securityHeaders } from './platform/security-headers';
import { apiRouter, chain, corsPolicyFor, type Middleware } from './router';
import { apiRoutes } from './routes';

export interface AppDeps {
  db: Knex;
  config: Config;
  log: Logger;
  orchestration: OrchestrationPort;
  clock?: Clock;
  limiter?: RateLimiterAbstract;
  /** Where keys are looked up: by default, the database on every request. */
  activeKeys?: ActiveKeys;
  /** /readyz's orchestration check: by default, a describe through the port. */
  orchestrationCheck?: ReadinessCheck;
}

export interface App {
  koa: Koa<ApiState>;
  routes: RouteSpec[];
}

/** Operators' probes: no key, no rate limit, outside /v1 and the OpenAPI document. */
const PROBE_PATHS = ['/healthz', '/readyz', '/metrics'];

function pagesRouter(routes: RouteSpec[], config: Config): Router<ApiState> {
  const router = new Router<ApiState>({ strict: true, sensitive: true });
  const errors = errorPage();
  let reference: string | undefined;
  router.get('/docs/errors', (ctx) => {
    ctx.type = 'html';
    ctx.body = errors;
  });
  router.get('/docs/api', (ctx) => {
    reference ??= referencePage(openApiDocument(routes, config.publicBaseUrl) as never);
    ctx.type = 'html';
    ctx.body = reference;
  });
  // The Markdown pages: after the two above, which have paths of their own under /docs.
  router.get(['/docs', '/docs/*page'], (ctx) => {
    const docs = docsSite();
    const moved = docs.movedTo(ctx.path);
    if (moved !== undefined) {
      ctx.status = 301;
      return ctx.redirect(moved);
    }
    // A guide's example file, as text to read or save under its own name.
    const example = docs.example(ctx.path);
    if (example !== undefined) {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.set('Content-Disposition', `inline; filename="${ctx.path.split('/').pop()}"`);
      ctx.body = example;
      return;
    }
    const page = ctx.path === '/docs' ? docs.contents(typeof ctx.query.q === 'string' ? ctx.query.q : '') : docs.page(ctx.path);
    ctx.type = 'html';
    ctx.status = page === undefined ? 404 : 200;
    ctx.body = page ?? docs.notFound(ctx.path);
  });
  return router;
}

export function createApp(deps: AppDeps): App {
  const { config, log } = deps;
  const clock = deps.clock ?? systemClock;
  const limiter = deps.limiter ?? createRateLimiter({ perMinute: config.rateLimitPerMinute, store: config.rateLimitStore, db: deps.db });
  const processors = createProcessors({ db: deps.db, clock, publicBaseUrl: () => config.publicBaseUrl, secretKey: config.secretKey });
  const routes = apiRoutes(config, processors, log);
  // Behind a proxy, the client address is the entry the last trusted proxy appended to
  // X-Forwarded-For; entries before it are the client's own to forge.
  const koa = new Koa<ApiState>({ proxy: config.trustProxy, maxIpsCount: config.trustedProxyHops });
  koa.silent = true;
  const pages = pagesRouter(routes, config);
  const api = apiRouter(routes, { db: deps.db, clock, config, log, limiter, activeKeys: deps.activeKeys ?? uncachedActiveKeys(deps.db), workflows: deps.orchestration });
  const policy = corsPolicyFor(routes);
  koa.use(traceId());
  koa.use(observeRequests({ log, apiPaths: routes.map((r) => r.path), probePaths: PROBE_PATHS }));
  koa.use(securityHeaders({ https: new URL(config.publicBaseUrl).protocol === 'https:' }));
  koa.use(errorHandler({ docsUrl: config.docsUrl, log }));
  koa.use(cors({ ownOrigins: [config.publicBaseUrl, ...config.corsOrigins], policyFor: (ctx) => policy(ctx.path) }));
  // API paths start with /v1/; the pages never do, so an API request skips their routers.
  const pageRouters = chain([
    healthRouter({ log, checks: { database: databaseCheck(deps.db), migrations: migrationsCheck(deps.db), orchestration: deps.orchestrationCheck ?? orchestrationCheck(deps.orchestration) } }).routes(),
    metricsRouter({ token: config.metricsToken, open: config.metricsOpen, log }).routes(),
    pages.routes(),
    assetsRouter().routes(),
    checkoutPagesRouter({ db: deps.db, clock, config, log, workflows: deps.orchestration, processors, limiter }).routes(),
    paymentLinkPagesRouter({ db: deps.db, clock, config, log, workflows: deps.orchestration, limiter }).routes(),
    invoicePagesRouter({ db: deps.db, clock, config, log, workflows: deps.orchestration, limiter }).routes(),
    processorNotificationsRouter({ db: deps.db, clock, config, log, workflows: deps.orchestration, processors, limiter }).routes(),
    // The sandbox processor's own pages (a live processor's pages live on its own site).
    sandboxRouter({ db: deps.db, clock }).routes(),
  ] as Middleware[]);
  koa.use((ctx, next) => (ctx.path.startsWith('/v1/') ? api(ctx, next) : pageRouters(ctx, next)));
  koa.use(async (ctx) => {
    throw new ApiError('unknown_endpoint', `${ctx.method} ${ctx.path} is not part of the API. Paths are lower case and start with /v1/; see ${config.publicBaseUrl}/docs/api.`);
  });
  return { koa, routes };
}
