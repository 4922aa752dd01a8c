// Reading a JSON body: writes need `Content-Type: application/json`, the size limit is enforced
// while the stream is read (a client cannot make us buffer more than the limit), and the body
// must parse as JSON.
import type { IncomingMessage } from 'node:http';
import type { Next } from 'koa';
import { ApiError } from '../../domain/errors';
import type { ApiContext } from './context';
import { isWrite, type RouteSpec } from './route';

export const BODY_LIMIT_BYTES = 256 * 1024;

function tooLarge(limit: number): ApiError {
  return new ApiError('body_too_large', `The body is over ${limit / 1024} kB (${limit} bytes).`, { headers: { connection: 'close' } });
}

/** The request body as text, refused (413) once it passes `limit` bytes, declared or streamed. */
export function readLimited(ctx: { req: IncomingMessage; get(field: string): string }, limit: number): Promise<string> {
  const { req } = ctx;
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  // Plain events rather than an async iterator, which costs a dozen promises per request.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (err: Error | null) => {
      req.off('data', onData).off('end', onEnd).off('error', settle).off('close', onClose);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks, size).toString('utf8'));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      // Drop the rest without keeping it; the connection closes after the answer.
      settle(tooLarge(limit));
      req.resume();
    };
    const onEnd = () => settle(null);
    const onClose = () => settle(new Error('the request closed before its body ended'));
    req.on('data', onData).on('end', onEnd).on('error', settle).on('close', onClose);
  });
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
    ctx.state.rawBody = raw;
    return next();
  };
}
