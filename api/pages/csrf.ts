// Cross-site request forgery on the hosted pages' forms. A form post counts only when it comes
// from a page this service rendered in the same browser: the page carries a token made from the
// browser's own cookie (HttpOnly, SameSite=Lax, so another site's post arrives without it) and
// the form's id, and a post whose Origin (or Sec-Fetch-Site) names another site is refused
// before the token is looked at.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Config } from '../../config';

const COOKIE = 'kasi_csrf';
const COOKIE_VALUE = /^[0-9a-f]{32}$/;
export const CSRF_FIELD = 'csrf';

export interface Csrf {
  /** The token for this browser and form, setting the browser's cookie when it has none. */
  token(ctx: Context, formId: string): string;
  /** Whether this post may act on the form: same origin, and the token of this browser. */
  accepts(ctx: Context, form: Record<string, string>, formId: string): boolean;
}

export function createCsrf(config: Config): Csrf {
  const ownOrigin = new URL(config.publicBaseUrl).origin;
  let key: Buffer | undefined;
  const tokenFor = (browser: string, formId: string) => {
    key ??= createHmac('sha256', config.secretKey()).update('kasi hosted-page forms').digest();
    return createHmac('sha256', key).update(`${browser}:${formId}`).digest('base64url');
  };
  const browserOf = (ctx: Context) => {
    const value = ctx.cookies.get(COOKIE);
    return value !== undefined && COOKIE_VALUE.test(value) ? value : undefined;
  };
  return {
    token(ctx, formId) {
      let browser = browserOf(ctx);
      if (browser === undefined) {
        browser = randomBytes(16).toString('hex');
        ctx.cookies.set(COOKIE, browser, { httpOnly: true, sameSite: 'lax', secure: ctx.secure, path: '/', overwrite: true });
      }
      return tokenFor(browser, formId);
    },
    accepts(ctx, form, formId) {
      // `null` is what a privacy setting may send for the page's own post; the token decides then.
      const origin = ctx.get('origin');
      if (origin !== '' && origin !== 'null' && origin !== ownOrigin) return false;
      if (ctx.get('sec-fetch-site') === 'cross-site') return false;
      const browser = browserOf(ctx);
      const sent = form[CSRF_FIELD];
      if (browser === undefined || sent === undefined) return false;
      const expected = Buffer.from(tokenFor(browser, formId));
      const given = Buffer.from(sent);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
