// Reading a JSON body: writes need `Content-Type: application/json`, the size limit is enforced
// while the stream is read (a client cannot make us buffer more than the limit), and the body
// must parse as JSON.
import type { Next } from 'koa';
import { ApiError } from '../../domain/errors';
import type { ApiContext } from './context';
import { isWrite, type RouteSpec } from './route';
import { readLimited } from '../../web/body';

export const BODY_LIMIT_BYTES = 256 * 1024;

function isJsonContentType(header: string): boolean {
  return /^application\/json\s*(;|$)/i.test(header.trim());
}

export function jsonBody(route: RouteSpec) {
  return async (ctx: ApiContext, next: Next) => {
    if (!isWrite(route.method)) return next();
    const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
    // Body-less actions (resume, send, delete) may be sent with no body and no content type.
    if (!route.body && !hasBody) {
      ctx.state.rawBody = '';
      ctx.state.body = {};
      return next();
    }
    if (!isJsonContentType(ctx.get('content-type'))) {
      throw new ApiError('json_required', 'Send the body as JSON with the header `Content-Type: application/json`.');
    }
    const raw = await readLimited(ctx, BODY_LIMIT_BYTES);
    try {
      ctx.state.body = JSON.parse(raw) as unknown;
    } catch {
      throw new ApiError('invalid_json', 'The body is not valid JSON.');
    }
    ctx.state.rawBody = raw;
    return next();
  };
}
