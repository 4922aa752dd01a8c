// GET /metrics: the process's metrics in Prometheus' text format. Outside the API (no API key, no
// rate limit, not in the OpenAPI document): keep it off the public internet. With METRICS_TOKEN
// set, a scrape must send `Authorization: Bearer <token>`; without it, metrics are served only by
// a server listening on loopback alone (config `metricsOpen`), else /metrics is 404.
import { timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import { registry } from '../../config/metrics';
import type { Logger } from 'pino';
import type { ApiState } from './context';

function sameSecret(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function metricsRouter(options: { token: string | undefined; open: boolean; log: Logger }): Router<ApiState> {
  const router = new Router<ApiState>({ strict: true, sensitive: true });
  const { token, open } = options;
  if (token === undefined && !open) options.log.warn('GET /metrics is off: HOST is beyond loopback and METRICS_TOKEN is unset; set METRICS_TOKEN to scrape metrics');
  router.get('/metrics', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    if (token === undefined && !open) {
      ctx.status = 404;
      ctx.type = 'text/plain';
      ctx.body = 'Metrics are served beyond loopback only with METRICS_TOKEN set.\n';
      return;
    }
    if (token !== undefined && !sameSecret(ctx.get('authorization'), `Bearer ${token}`)) {
      ctx.status = 401;
      ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
      ctx.type = 'text/plain';
      ctx.body = 'Send the metrics token (METRICS_TOKEN) as Authorization: Bearer <token>.\n';
      return;
    }
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });
  return router;
}
