// HTML form posts (application/x-www-form-urlencoded) for the hosted pages, which work without
// JavaScript. Small limit: a form of a few fields never needs more.
import type { Context } from 'koa';
import { ApiError } from '../domain/errors';
import { readLimited } from './body';

const FORM_LIMIT_BYTES = 16 * 1024;

export async function readForm(ctx: Context): Promise<Record<string, string>> {
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(ctx.get('content-type'))) {
    throw new ApiError('VALIDATION_FAILED', 'Send the form as application/x-www-form-urlencoded.');
  }
  const out: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(await readLimited(ctx, FORM_LIMIT_BYTES))) out[name] = value;
  return out;
}
