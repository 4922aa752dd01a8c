// Every answer carries `x-trace-id`; error bodies repeat it as `traceId`, so a merchant's support
// request can be matched to our logs.
import type { Next } from 'koa';
import { randomHex } from '../../crypto/ids';
import type { ApiContext } from './context';

export function traceId() {
  return async (ctx: ApiContext, next: Next) => {
    ctx.state.traceId = `tr_${randomHex(12)}`;
    ctx.set('x-trace-id', ctx.state.traceId);
    await next();
  };
}
