// The hosted payment link page at {checkout_url}/pay/<id> (and /si/..., /ta/...): the merchant,
// what is sold and the amount, and a button that makes the payer a checkout of their own and sends
// them to it. A turned-off link answers 409 `link_inactive`. Server-rendered: no JavaScript.
import Router from '@koa/router';
import type { Context } from 'koa';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { accountRefusal } from '../../domain/account-rules';
import { orderFromLineItems } from '../../domain/checkout-rules';
import { ApiError } from '../../domain/errors';
import { idPattern } from '../../domain/ids';
import type { Locale } from '../../domain/locale';
import { centsFromDb, formatRupees } from '../../domain/money';
import { findAccount, type AccountRecord } from '../../db/accounts';
import { findPaymentLink, type PaymentLinkRow } from '../../db/payment-links';
import type { ServiceDeps } from '../../services/context';
import { paymentLinkPath } from '../../services/payment-links/create';
import { openPayerCheckout } from '../../services/payment-links/open-checkout';
import { escapeHtml } from '../../web/html';
import { readForm } from '../../web/form';
import { createCsrf, CSRF_FIELD } from './csrf';
import { hostedPage, orderSummary, pageLimiter } from './hosted-page';
import { say } from './messages';

export interface PaymentLinkPagesDeps extends ServiceDeps {
  /** The API's limiter: each page has the same per-address budget as each API endpoint. */
  limiter: RateLimiterAbstract;
}

const ID = new RegExp(idPattern('paymentLink'));

interface View {
  link: PaymentLinkRow;
  merchant: string;
  /** Why the account takes no payment now (suspended), as the API's writes refuse it too; or null. */
  refusal: ApiError | null;
}

export function paymentLinkPagesRouter(deps: PaymentLinkPagesDeps): Router {
  const { db } = deps;
  const router = new Router({ strict: true, sensitive: true });
  const csrf = createCsrf(deps.config);

  const load = async (id: string): Promise<View | undefined> => {
    if (!ID.test(id)) return undefined;
    const link = await findPaymentLink(db, id);
    if (!link) return undefined;
    const account = (await findAccount(db, link.account_id)) as AccountRecord;
    return { link, merchant: account.name, refusal: accountRefusal(account, link.mode) };
  };

  const { render, message, paymentRefused } = hostedPage<View>(paymentLinkPath, (view) => ({ id: view.link.id, mode: view.link.mode, merchant: view.merchant }));

  /** Why no checkout can be made, in the payer's language: the service's refusal as a page. */
  const refused = (ctx: Context, locale: Locale, view: View, refusal: ApiError) => {
    if (refusal.reason === 'link_inactive') return message(ctx, locale, view, 409, 'linkInactiveTitle', 'linkInactiveText', 'link_inactive');
    if (!paymentRefused(ctx, locale, view, refusal)) throw refusal;
  };

  /** Turned off, or the account refuses payments: no checkout can be made. */
  const usable = (view: View): ApiError | null =>
    view.link.active ? view.refusal : new ApiError('link_inactive', 'This payment link is turned off.');

  const linkPage = (ctx: Context, locale: Locale, view: View, reason?: 'page_changed') => {
    const { link, merchant } = view;
    const amount = formatRupees(centsFromDb(link.amount_cents));
    const purchase = { ...link, order: link.line_items === null ? null : orderFromLineItems(link.line_items) };
    render(ctx, locale, view, reason ? 409 : 200, say(locale, 'pageTitle', { merchant }), `
<h1>${escapeHtml(say(locale, 'payTo', { merchant }))}</h1>
<p><strong>${escapeHtml(amount)}</strong></p>
${reason ? `<p role="alert">${escapeHtml(say(locale, 'linkPageChanged'))}</p>` : ''}
${orderSummary(locale, purchase)}
<form method="post" action="${paymentLinkPath(locale, link.id)}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${escapeHtml(csrf.token(ctx, link.id))}">
<button type="submit">${escapeHtml(say(locale, 'linkContinue'))}</button>
<p class="hint">${escapeHtml(say(locale, 'linkHint'))}</p>
</form>`, reason);
  };

  const show = async (ctx: Context, locale: Locale) => {
    const view = await load(String(ctx.params.id));
    if (!view) return message(ctx, locale, undefined, 404, 'linkNotFoundTitle', null);
    const refusal = usable(view);
    if (refusal !== null) return refused(ctx, locale, view, refusal);
    linkPage(ctx, locale, view);
  };

  /** The button: a checkout of the payer's own, and off to its page (in the language of this one). */
  const start = async (ctx: Context, locale: Locale) => {
    const view = await load(String(ctx.params.id));
    if (!view) return message(ctx, locale, undefined, 404, 'linkNotFoundTitle', null);
    const form = await readForm(ctx);
    const refusal = usable(view);
    if (refusal !== null) return refused(ctx, locale, view, refusal);
    // Another site's post, or a page from before the browser's cookie: no checkout is made, and
    // the page comes back with a fresh token for the payer to press the button again.
    if (!csrf.accepts(ctx, form, view.link.id)) return linkPage(ctx, locale, view, 'page_changed');
    let url: string;
    try {
      url = (await openPayerCheckout(deps, view.link.id, locale)).checkout.url;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return refused(ctx, locale, view, err);
    }
    ctx.status = 303;
    ctx.redirect(url);
  };

  const limited = pageLimiter(deps.limiter, (ctx, locale) => message(ctx, locale, undefined, 429, 'tooManyRequests', null));
  const pages = { show: limited('page GET /pay/:id', show), start: limited('page POST /pay/:id', start) };

  for (const locale of ['en', 'si', 'ta'] as const) {
    router.get(paymentLinkPath(locale, ':id'), (ctx) => pages.show(ctx, locale));
    router.post(paymentLinkPath(locale, ':id'), (ctx) => pages.start(ctx, locale));
  }
  return router;
}
