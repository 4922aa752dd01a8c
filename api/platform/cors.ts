// Cross-origin browser requests: the OpenAPI document is readable from any origin; every other
// API endpoint answers browsers only on the service's own origins (PUBLIC_BASE_URL and
// CORS_ORIGINS), so page scripts elsewhere cannot call the API, not even with a publishable key.
import type { Next } from 'koa';
import { ApiError } from '../../domain/errors';
import type { ApiContext } from './context';

const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key';
const EXPOSED_HEADERS = 'x-trace-id, Idempotent-Replayed, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After';

export function cors(options: { ownOrigins: string[]; policyFor(ctx: ApiContext): 'any' | 'own' | null }) {
  const own = new Set(options.ownOrigins.map((o) => new URL(o).origin));
  // Not async (see trace-id.ts): what it throws, it throws before next(), which koa turns into the same rejection.
  return (ctx: ApiContext, next: Next) => {
    const origin = ctx.get('origin');
    if (!origin) return next();
    const policy = options.policyFor(ctx);
    if (policy === null) return next();
    if (policy === 'own' && !own.has(origin)) {
      throw new ApiError('origin_not_allowed', `The API answers browser requests only from the service's own sites, not from ${origin}.`);
    }
    ctx.set('Access-Control-Allow-Origin', policy === 'any' ? '*' : origin);
    if (policy === 'own') ctx.vary('Origin');
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST, DELETE');
      ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    return next();
  };
}
