// What the hosted pages with one button that makes the customer a checkout share (a payment
// link's, an invoice's): the page while a checkout can be made, or why not; the button's post,
// which answers that refusal first, then wants this browser's token (csrf.ts: without it the page
// comes back, 409 `page_changed`, with a fresh token to press the button again), then makes the
// checkout and sends the customer to its page (303), or shows the service's refusal; and each
// request counted against its address, in every language. Server-rendered: no JavaScript.
import Router from '@koa/router';
import type { Context } from 'koa';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../../config';
import { ApiError } from '../../domain/errors';
import { LOCALES, type Locale } from '../../domain/locale';
import { escapeHtml } from '../../web/html';
import { readForm } from '../../web/form';
import { createCsrf, CSRF_FIELD } from './csrf';
import { pageLimiter, type hostedPage } from './hosted-page';
import { say, type MessageKey } from './messages';

export interface CheckoutButtonDeps {
  config: Config;
  /** The API's limiter: each page has the same per-address budget as each API endpoint. */
  limiter: RateLimiterAbstract;
}

/** One kind of page about its `View` (a payment link, an invoice). */
export interface CheckoutButtonPage<View> {
  /** The page's path in a language (`:id` for the router; the English one names its rate-limit buckets). */
  path: (locale: Locale, id: string) => string;
  /** The page's answers (hosted-page.ts), made with the same `path`. */
  answers: ReturnType<typeof hostedPage<View>>;
  /** The object behind the page, or undefined: 404 with `notFoundTitle`. */
  load: (id: string) => Promise<View | undefined>;
  notFoundTitle: MessageKey;
  /** Its id: in its path, and what the button's token is for. */
  idOf: (view: View) => string;
  /** Why no checkout can be made now (shown instead of the page, and answered to the button), or null. */
  refusal: (view: View) => ApiError | null | Promise<ApiError | null>;
  /** Answers a refusal of this kind of page's own and says true; false for one it does not know. */
  ownRefusal: (ctx: Context, locale: Locale, view: View, refusal: ApiError) => boolean;
  /** The page's title, what it shows first (above a `page_changed` alert), and its summary. */
  content: (locale: Locale, view: View) => { title: string; top: string; summary: string };
  /** The button's text, and the hint under it: what the checkout it opens asks of the customer next. */
  button: MessageKey;
  hint: (view: View) => MessageKey;
  /** Makes the checkout, in the language of the page its button was pressed on. */
  openCheckout: (view: View, locale: Locale) => Promise<{ checkout: { url: string } }>;
}

export function checkoutButtonRouter<View>(deps: CheckoutButtonDeps, spec: CheckoutButtonPage<View>): Router {
  const router = new Router({ strict: true, sensitive: true });
  const csrf = createCsrf(deps.config);
  const { render, message, paymentRefused } = spec.answers;

  /** Why no checkout can be made, in the customer's language: the page's own refusals, then the payment refusals every page shows. */
  const refused = (ctx: Context, locale: Locale, view: View, refusal: ApiError) => {
    if (!spec.ownRefusal(ctx, locale, view, refusal) && !paymentRefused(ctx, locale, view, refusal)) throw refusal;
  };

  const page = (ctx: Context, locale: Locale, view: View, reason?: 'page_changed') => {
    const id = spec.idOf(view);
    const { title, top, summary } = spec.content(locale, view);
    render(ctx, locale, view, reason ? 409 : 200, title, `
${top}
${reason ? `<p role="alert">${escapeHtml(say(locale, 'linkPageChanged'))}</p>` : ''}
${summary}
<form method="post" action="${spec.path(locale, id)}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${escapeHtml(csrf.token(ctx, id))}">
<button type="submit">${escapeHtml(say(locale, spec.button))}</button>
<p class="hint">${escapeHtml(say(locale, spec.hint(view)))}</p>
</form>`, reason);
  };

  const show = async (ctx: Context, locale: Locale) => {
    const view = await spec.load(String(ctx.params.id));
    if (!view) return message(ctx, locale, undefined, 404, spec.notFoundTitle, null);
    const refusal = await spec.refusal(view);
    if (refusal !== null) return refused(ctx, locale, view, refusal);
    page(ctx, locale, view);
  };

  /** The button: a checkout, and off to its page (in the language of this one). */
  const start = async (ctx: Context, locale: Locale) => {
    const view = await spec.load(String(ctx.params.id));
    if (!view) return message(ctx, locale, undefined, 404, spec.notFoundTitle, null);
    const form = await readForm(ctx);
    const refusal = await spec.refusal(view);
    if (refusal !== null) return refused(ctx, locale, view, refusal);
    // Another site's post, or a page from before the browser's cookie: no checkout is made, and
    // the page comes back with a fresh token for the customer to press the button again.
    if (!csrf.accepts(ctx, form, spec.idOf(view))) return page(ctx, locale, view, 'page_changed');
    let url: string;
    try {
      url = (await spec.openCheckout(view, locale)).checkout.url;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return refused(ctx, locale, view, err);
    }
    ctx.status = 303;
    ctx.redirect(url);
  };

  const limited = pageLimiter(deps.limiter, (ctx, locale) => message(ctx, locale, undefined, 429, 'tooManyRequests', null));
  const bucket = spec.path('en', ':id');
  const pages = { show: limited(`page GET ${bucket}`, show), start: limited(`page POST ${bucket}`, start) };

  for (const locale of LOCALES) {
    router.get(spec.path(locale, ':id'), (ctx) => pages.show(ctx, locale));
    router.post(spec.path(locale, ':id'), (ctx) => pages.start(ctx, locale));
  }
  return router;
}
