// Reading a JSON body: writes need `Content-Type: application/json`, the size limit is enforced
// while the stream is read (a client cannot make us buffer more than the limit), and the body
// must parse as JSON and nest no deeper than BODY_MAX_DEPTH.
import type { Next } from 'koa';
import { ApiError } from '../../domain/errors';
import type { ApiContext } from './context';
import { isWrite, type RouteSpec } from './route';
import { readLimited } from '../../web/body';

export const BODY_LIMIT_BYTES = 256 * 1024;

/**
 * Objects and arrays in objects and arrays, at most: far beyond any route's body (a price's
 * tiers are 3 deep), and refused before anything walks the body recursively (the idempotency
 * fingerprint, the U+0000 check), which 256 kB of brackets would take past the stack.
 */
export const BODY_MAX_DEPTH = 32;

/** Whether JSON text (already parsed, so well formed) nests deeper than `max`. */
function nestsDeeper(json: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

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
    if (nestsDeeper(raw, BODY_MAX_DEPTH)) {
      const message = `Objects and arrays nested deeper than ${BODY_MAX_DEPTH} levels.`;
      throw new ApiError('VALIDATION_FAILED', `The body is not valid: ${message}`, { fields: [{ path: '', message }] });
    }
    ctx.state.rawBody = raw;
    return next();
  };
}
