// Every answer carries `x-trace-id`; error bodies repeat it as `traceId`, so a merchant's support
// request can be matched to our logs.
import type { Next } from 'koa';
import { randomHex } from '../../crypto/ids';
import type { ApiContext } from './context';

// Links that only set something and go on are plain functions returning next()'s promise: an
// async one costs each request a promise of its own and a microtask more (bench/HISTORY.md, session 17).
export function traceId() {
  return (ctx: ApiContext, next: Next) => {
    ctx.state.traceId = `tr_${randomHex(12)}`;
    ctx.set('x-trace-id', ctx.state.traceId);
    return next();
  };
}
