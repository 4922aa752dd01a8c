// Reading a request body as text under a size limit, for the JSON API and the HTML forms alike.
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../domain/errors';

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
