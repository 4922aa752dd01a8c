// 120 requests per minute per client address, counted separately per endpoint
// (RATE_LIMIT_PER_MINUTE). In memory by default; with RATE_LIMIT_STORE=postgres the count lives in
// Postgres so several API processes share it.
import type { Knex } from 'knex';
import type { Next } from 'koa';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ApiError } from '../../domain/errors';
import type { ApiContext } from './context';

const WINDOW_SECONDS = 60;

export function createRateLimiter(options: { perMinute: number; store: 'memory' | 'postgres'; db: Knex }): RateLimiterAbstract {
  const common = { points: options.perMinute, duration: WINDOW_SECONDS, keyPrefix: 'api' };
  return options.store === 'postgres'
    ? new RateLimiterPostgres({ ...common, storeClient: options.db, storeType: 'knex', tableName: 'rate_limits', tableCreated: true })
    : new RateLimiterMemory(common);
}

function setHeaders(ctx: ApiContext, limit: number, res: RateLimiterRes): void {
  ctx.set('X-RateLimit-Limit', String(limit));
  ctx.set('X-RateLimit-Remaining', String(Math.max(0, res.remainingPoints)));
  ctx.set('X-RateLimit-Reset', String(Math.ceil(res.msBeforeNext / 1000)));
}

/** Counts the request against its address and endpoint (`bucket`: the route's method and path). */
export function rateLimit(limiter: RateLimiterAbstract, bucket: string) {
  return async (ctx: ApiContext, next: Next) => {
    let res: RateLimiterRes;
    try {
      res = await limiter.consume(`${ctx.ip} ${bucket}`);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      setHeaders(ctx, limiter.points, rejection);
      const retryAfter = String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
      throw new ApiError('RATE_LIMITED', `Too many requests to this endpoint: at most ${limiter.points} a minute. Retry after ${retryAfter} seconds.`, {
        headers: { 'Retry-After': retryAfter },
      });
    }
    setHeaders(ctx, limiter.points, res);
    return next();
  };
}
