// HTML form posts (application/x-www-form-urlencoded) for the hosted pages, which work without
// JavaScript. Small limit: a form of a few fields never needs more.
import type { Context } from 'koa';
import { ApiError } from '../../domain/errors';

const FORM_LIMIT_BYTES = 16 * 1024;

export async function readForm(ctx: Context): Promise<Record<string, string>> {
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(ctx.get('content-type'))) {
    throw new ApiError('VALIDATION_FAILED', 'Send the form as application/x-www-form-urlencoded.');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > FORM_LIMIT_BYTES) {
      ctx.req.resume();
      throw new ApiError('body_too_large', 'The form is too large.');
    }
    chunks.push(chunk as Buffer);
  }
  const out: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(Buffer.concat(chunks).toString('utf8'))) out[name] = value;
  return out;
}
