// The hosted checkout pages at {checkout_url}/checkout/<id> (and /si/..., /ta/...): the order,
// the customer's details when the checkout has none, the card-keeping consent, and a pay action
// that hands the customer to the processor's page. Server-rendered forms: no JavaScript needed.
import Router from '@koa/router';
import type { Context } from 'koa';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { accountRefusal } from '../../domain/account-rules';
import { looksLikeCardNumber, SCHEME_NAMES } from '../../domain/card';
import { checkoutClosure } from '../../domain/checkout-rules';
import { ApiError, type Reason } from '../../domain/errors';
import type { Locale } from '../../domain/locale';
import { centsFromDb, formatRupees } from '../../domain/money';
import { normaliseSriLankanPhone } from '../../domain/phone';
import { accountFromRow, ACCOUNT_COLUMNS, type AccountRow } from '../../db/accounts';
import { findCheckout, type CheckoutRow } from '../../db/checkouts';
import { findPayment, type PaymentRow } from '../../db/payments';
import { awaitAttemptOutcome } from '../../services/checkouts/lifetime';
import { payCheckout } from '../../services/checkouts/pay';
import type { ProcessorServiceDeps } from '../../services/context';
import { escapeHtml, htmlDocument, stylesheet } from '../../web/html';
import { FONT_FACE_CSS, SCRIPT_FONT_FAMILIES } from './assets';
import { createCsrf, CSRF_FIELD } from './csrf';
import { readForm } from '../../web/form';
import { declineKey, LANGUAGE_NAMES, say, type MessageKey } from './messages';

export interface CheckoutPagesDeps extends ProcessorServiceDeps {
  /** The API's limiter: each page has the same per-address budget as each API endpoint. */
  limiter: RateLimiterAbstract;
}

const ID = /^chk_[0-9a-z]{24}$/;
// How long the return from the processor waits for the lifetime workflow to apply the outcome.
const OUTCOME_WAIT_MS = 10_000;

interface View {
  checkout: CheckoutRow;
  payment: PaymentRow;
  merchant: string;
  /** Why the account takes no payment now (suspended), as the API's writes refuse it too; or null. */
  refusal: ApiError | null;
}

interface FormState {
  values: { name?: string; email?: string; phone?: string };
  problems: Partial<Record<'name' | 'email' | 'phone', MessageKey>>;
  reason?: Reason;
}

const PAGE_STYLE = stylesheet(`${FONT_FACE_CSS}
body{font:17px/1.5 ${SCRIPT_FONT_FAMILIES},system-ui,sans-serif;margin:0;background:#f6f7f9;color:#16181d}
main{max-width:32rem;margin:0 auto;padding:1rem}
.panel{background:#fff;border:1px solid #c5cad3;border-radius:10px;padding:1rem;margin-top:1rem}
.test{background:#fff4ce;border:1px solid #7a5d00;border-radius:6px;padding:.4rem .6rem;margin:0}
nav ul{list-style:none;display:flex;gap:1rem;padding:0;margin:.5rem 0}
table{width:100%;border-collapse:collapse}th,td{padding:.35rem 0;text-align:left;vertical-align:top}
td.num,th.num{text-align:right}tfoot th,tfoot td{border-top:2px solid #16181d;font-weight:700}
label{display:block;margin-top:.8rem;font-weight:600}
input[type=text],input[type=email],input[type=tel]{font:inherit;width:100%;box-sizing:border-box;padding:.6rem;border:1px solid #5c6370;border-radius:6px}
.consent{display:flex;gap:.6rem;align-items:flex-start;font-weight:400}.consent input{width:1.3rem;height:1.3rem;margin-top:.2rem}
.hint{color:#454b55;font-size:.9rem;margin:.2rem 0 0}
.problem{color:#8c1c13;font-weight:600;margin:.2rem 0 0}
[role=alert]{background:#fdecea;border:1px solid #8c1c13;color:#8c1c13;border-radius:6px;padding:.6rem}
button{font:inherit;font-weight:700;width:100%;margin-top:1rem;padding:.8rem;border:0;border-radius:8px;background:#0b57d0;color:#fff;cursor:pointer}
a{color:#0b57d0}
:focus-visible{outline:3px solid #16181d;outline-offset:2px}`);

function layout(locale: Locale, path: (l: Locale) => string, title: string, body: string, testMode: boolean): string {
  const languages = (['en', 'si', 'ta'] as const)
    .map((l) => (l === locale ? `<li><span aria-current="page">${LANGUAGE_NAMES[l]}</span></li>` : `<li><a href="${escapeHtml(path(l))}" lang="${l}" hreflang="${l}">${LANGUAGE_NAMES[l]}</a></li>`))
    .join('');
  const main = `<main>
${testMode ? `<p class="test">${escapeHtml(say(locale, 'testMode'))}</p>` : ''}
<nav aria-label="${escapeHtml(say(locale, 'language'))}"><ul>${languages}</ul></nav>
${body}
</main>`;
  return htmlDocument(locale, title, PAGE_STYLE, main);
}

function orderSummary(locale: Locale, payment: PaymentRow): string {
  const amount = formatRupees(centsFromDb(payment.amount_cents));
  const rows = payment.order
    ? payment.order.lines
        .map((line) => `<tr><td>${escapeHtml(line.name)}${line.description ? `<br><span class="hint">${escapeHtml(line.description)}</span>` : ''}</td><td class="num">${line.quantity}</td><td class="num">${escapeHtml(formatRupees(line.amountCents))}</td></tr>`)
        .join('')
    : `<tr><td>${escapeHtml(payment.description)}</td><td class="num">1</td><td class="num">${escapeHtml(amount)}</td></tr>`;
  return `<section class="panel" aria-labelledby="summary-title">
<h2 id="summary-title">${escapeHtml(say(locale, 'orderSummary'))}</h2>
<table>
<thead><tr><th scope="col">${escapeHtml(say(locale, 'item'))}</th><th scope="col" class="num">${escapeHtml(say(locale, 'quantity'))}</th><th scope="col" class="num">${escapeHtml(say(locale, 'amount'))}</th></tr></thead>
<tbody>${rows}</tbody>
<tfoot><tr><th scope="row" colspan="2">${escapeHtml(say(locale, 'total'))}</th><td class="num">${escapeHtml(amount)}</td></tr></tfoot>
</table>
${payment.reference ? `<p class="hint">${escapeHtml(say(locale, 'reference'))}: ${escapeHtml(payment.reference)}</p>` : ''}
</section>`;
}

function field(locale: Locale, name: 'name' | 'email' | 'phone', type: string, autocomplete: string, state: FormState, required: boolean): string {
  const problem = state.problems[name];
  const described = [name === 'phone' ? 'phone-hint' : '', problem ? `${name}-problem` : ''].filter(Boolean).join(' ');
  return `<label for="${name}">${escapeHtml(say(locale, name))}</label>
<input type="${type}" id="${name}" name="${name}" autocomplete="${autocomplete}" value="${escapeHtml(state.values[name] ?? '')}"${required ? ' required' : ''}${problem ? ' aria-invalid="true"' : ''}${described ? ` aria-describedby="${described}"` : ''}>
${name === 'phone' ? `<p class="hint" id="phone-hint">${escapeHtml(say(locale, 'phoneHint'))}</p>` : ''}
${problem ? `<p class="problem" id="${name}-problem">${escapeHtml(say(locale, problem))}</p>` : ''}`;
}

export function checkoutPagesRouter(deps: CheckoutPagesDeps): Router {
  const { db, clock } = deps;
  const router = new Router({ strict: true, sensitive: true });
  const csrf = createCsrf(deps.config);
  const prefix = (locale: Locale) => (locale === 'en' ? '' : `/${locale}`);
  const pagePath = (locale: Locale, id: string) => `${prefix(locale)}/checkout/${id}`;

  const load = async (id: string): Promise<View | undefined> => {
    if (!ID.test(id)) return undefined;
    const checkout = await findCheckout(db, id);
    if (!checkout) return undefined;
    const payment = await findPayment(db, checkout.payment_id);
    const account = accountFromRow((await db('accounts').where({ id: checkout.account_id }).first(ACCOUNT_COLUMNS)) as AccountRow);
    return { checkout, payment, merchant: account.name, refusal: accountRefusal(account, checkout.mode) };
  };

  const render = (ctx: Context, locale: Locale, view: View | undefined, status: number, title: string, body: string, reason?: Reason) => {
    ctx.status = status;
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    if (reason) ctx.set('X-Kasi-Reason', reason);
    const id = view?.checkout.id ?? String(ctx.params.id);
    ctx.body = layout(locale, (l) => pagePath(l, id), title, body, view?.checkout.mode === 'test');
  };

  const message = (ctx: Context, locale: Locale, view: View | undefined, status: number, titleKey: MessageKey, textKey: MessageKey | null, reason?: Reason) => {
    const values: Record<string, string> = view ? { merchant: view.merchant } : {};
    const title = say(locale, titleKey, values);
    render(ctx, locale, view, status, title, `<section class="panel"><h1 data-reason="${reason ?? ''}">${escapeHtml(title)}</h1>${textKey ? `<p>${escapeHtml(say(locale, textKey, values))}</p>` : ''}</section>`, reason);
  };

  const receipt = (ctx: Context, locale: Locale, view: View) => {
    const { payment, merchant } = view;
    const values = { merchant, amount: formatRupees(centsFromDb(payment.amount_cents)) };
    const card = payment.card_scheme ? `<p>${escapeHtml(say(locale, 'paidCard', { scheme: SCHEME_NAMES[payment.card_scheme], last4: payment.card_last4 ?? '' }))}</p>` : '';
    render(ctx, locale, view, 200, say(locale, 'paidTitle'), `<section class="panel"><h1>${escapeHtml(say(locale, 'paidTitle'))}</h1><p>${escapeHtml(say(locale, 'paidText', values))}</p>${card}</section>${orderSummary(locale, payment)}`);
  };

  /** Why nothing can be paid, in the shopper's language: the service's refusal as a page. */
  const refused = (ctx: Context, locale: Locale, view: View, refusal: ApiError) => {
    switch (refusal.reason) {
      case 'not_open':
        return message(ctx, locale, view, 409, 'notOpenTitle', 'notOpenText', 'not_open');
      case 'expired':
        return message(ctx, locale, view, 409, 'expiredTitle', 'expiredText', 'expired');
      case 'monthly_limit_reached':
        return message(ctx, locale, view, 409, 'limitReached', null, 'monthly_limit_reached');
      case 'merchant_unavailable':
      case 'merchant_not_live':
        return message(ctx, locale, view, 409, 'suspended', null, refusal.reason);
      default:
        if (refusal.code === 'NOT_SUPPORTED') return message(ctx, locale, view, 501, 'unavailable', null);
        throw refusal;
    }
  };

  /** Paid, expired (or past its time), or the account refuses payments: nothing can be paid. */
  const payable = (view: View): ApiError | null => {
    const closure = checkoutClosure(view.checkout, view.payment.status, clock.now());
    return closure === null ? view.refusal : new ApiError(closure, closure === 'expired' ? 'The checkout has expired.' : 'The checkout is paid or closed.');
  };

  const payPage = (ctx: Context, locale: Locale, view: View, state: FormState, status = 200) => {
    const { checkout, payment, merchant } = view;
    const amount = formatRupees(centsFromDb(payment.amount_cents));
    const alerts: string[] = [];
    if (state.reason === 'card_number_refused') alerts.push(say(locale, 'card_number_refused'));
    else if (state.reason === 'page_changed') alerts.push(say(locale, 'pageChanged'));
    else if (state.reason === 'details_invalid') alerts.push(say(locale, 'details_invalid'));
    else if (payment.status === 'failed') alerts.push(say(locale, 'declined', { reason: say(locale, declineKey(payment.failure_code)) }));
    else if (payment.status === 'processing') alerts.push(say(locale, 'processing'));
    const needsCustomer = payment.customer_email === null;
    const details = needsCustomer
      ? `<fieldset class="panel"><legend><h2>${escapeHtml(say(locale, 'yourDetails'))}</h2></legend>
${field(locale, 'name', 'text', 'name', state, true)}
${field(locale, 'email', 'email', 'email', state, true)}
${field(locale, 'phone', 'tel', 'tel', state, false)}
</fieldset>`
      : '';
    const consent = checkout.save_card
      ? `<label class="consent"><input type="checkbox" name="saveCard" value="yes"> <span>${escapeHtml(say(locale, 'saveCard', { merchant }))}</span></label>`
      : '';
    const cancel = checkout.cancel_url ? `<p><a href="${escapeHtml(checkout.cancel_url)}">${escapeHtml(say(locale, 'cancel', { merchant }))}</a></p>` : '';
    render(ctx, locale, view, status, say(locale, 'pageTitle', { merchant }), `
<h1>${escapeHtml(say(locale, 'payTo', { merchant }))}</h1>
<p><strong>${escapeHtml(amount)}</strong></p>
${alerts.map((a) => `<p role="alert">${escapeHtml(a)}</p>`).join('')}
${orderSummary(locale, payment)}
<form method="post" action="${pagePath(locale, checkout.id)}/pay" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${escapeHtml(csrf.token(ctx, checkout.id))}">
${details}
${consent}
<button type="submit">${escapeHtml(say(locale, 'pay', { amount }))}</button>
<p class="hint">${escapeHtml(say(locale, 'payHint'))}</p>
</form>
${cancel}`, state.reason);
  };

  const show = async (ctx: Context, locale: Locale) => {
    const view = await load(String(ctx.params.id));
    if (!view) return message(ctx, locale, undefined, 404, 'notFoundTitle', null);
    const refusal = payable(view);
    if (refusal?.reason === 'not_open') return receipt(ctx, locale, view);
    if (refusal !== null) return refused(ctx, locale, view, refusal);
    payPage(ctx, locale, view, { values: {}, problems: {} });
  };

  const pay = async (ctx: Context, locale: Locale) => {
    const view = await load(String(ctx.params.id));
    if (!view) return message(ctx, locale, undefined, 404, 'notFoundTitle', null);
    const form = await readForm(ctx);
    const refusal = payable(view);
    if (refusal !== null) return refused(ctx, locale, view, refusal);
    // Another site's post, or a page from before the browser's cookie: nothing is kept, and the
    // page comes back with a fresh token for the shopper to press Pay again.
    if (!csrf.accepts(ctx, form, view.checkout.id)) return payPage(ctx, locale, view, { values: {}, problems: {}, reason: 'page_changed' }, 409);

    let customer: { name: string; email: string; phone: string | null } | null = null;
    if (view.payment.customer_email === null) {
      const values = { name: (form.name ?? '').trim(), email: (form.email ?? '').trim(), phone: (form.phone ?? '').trim() };
      // A card number typed into our fields is refused and dropped: never stored, never shown.
      const carded = (['name', 'email', 'phone'] as const).filter((k) => looksLikeCardNumber(values[k]));
      if (carded.length > 0) {
        for (const k of carded) values[k] = '';
        return payPage(ctx, locale, view, { values, problems: {}, reason: 'card_number_refused' }, 400);
      }
      const problems: FormState['problems'] = {};
      if (values.name.length < 2 || values.name.length > 80) problems.name = 'nameInvalid';
      if (values.email.length < 3 || values.email.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(values.email)) problems.email = 'emailInvalid';
      const phone = values.phone === '' ? null : normaliseSriLankanPhone(values.phone);
      if (values.phone !== '' && phone === null) problems.phone = 'phoneInvalid';
      if (Object.keys(problems).length > 0) return payPage(ctx, locale, view, { values, problems, reason: 'details_invalid' }, 400);
      customer = { name: values.name, email: values.email, phone };
    }

    const cardConsent = form.saveCard === 'yes' ? { locale, wording: say(locale, 'saveCard', { merchant: view.merchant }) } : null;
    const returnUrl = (attempt: number) => `${deps.config.publicBaseUrl}${pagePath(locale, view.checkout.id)}/return?attempt=${attempt}`;
    let session: { redirectUrl: string };
    try {
      session = await payCheckout(deps, { checkoutId: view.checkout.id, customer, cardConsent, locale, merchantName: view.merchant, returnUrl }, view.checkout.mode);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return refused(ctx, locale, view, err);
    }
    ctx.status = 303;
    ctx.redirect(session.redirectUrl);
  };

  /** Back from the processor: the lifetime workflow applies the outcome; we wait (a while) to show it. */
  const returned = async (ctx: Context, locale: Locale) => {
    const view = await load(String(ctx.params.id));
    if (!view) return message(ctx, locale, undefined, 404, 'notFoundTitle', null);
    const attempt = Number(ctx.query.attempt);
    if (Number.isSafeInteger(attempt) && attempt > 0 && view.payment.status === 'processing' && view.payment.attempts === attempt && view.checkout.status === 'open') {
      let timer: NodeJS.Timeout | undefined;
      // Past the wait the page says the payment is still being confirmed; the workflow carries on.
      const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, OUTCOME_WAIT_MS)));
      const outcome = awaitAttemptOutcome(deps.workflows, view.checkout, attempt);
      // A failure within the wait is this request's (the error page, logged); one after it has no
      // page left to answer and must not become an unhandled rejection that ends the process.
      outcome.catch(() => undefined);
      try {
        await Promise.race([outcome, waited]);
      } finally {
        clearTimeout(timer);
      }
    }
    const now = await findCheckout(db, view.checkout.id);
    // The checkout completes in the transaction that makes its payment succeed.
    if (now?.status === 'completed' && now.success_url) {
      ctx.status = 303;
      return ctx.redirect(now.success_url);
    }
    ctx.status = 303;
    ctx.redirect(pagePath(locale, view.checkout.id));
  };

  /**
   * Counts the request against its address and page (`bucket`, the same in every language), as the
   * API counts its endpoints; past the budget, a page in the shopper's language and Retry-After.
   */
  const limited = (bucket: string, handler: (ctx: Context, locale: Locale) => Promise<void>) => async (ctx: Context, locale: Locale) => {
    try {
      await deps.limiter.consume(`${ctx.ip} ${bucket}`);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      ctx.set('Retry-After', String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))));
      return message(ctx, locale, undefined, 429, 'tooManyRequests', null);
    }
    return handler(ctx, locale);
  };
  const pages = { show: limited('page GET /checkout/:id', show), pay: limited('page POST /checkout/:id/pay', pay), returned: limited('page GET /checkout/:id/return', returned) };

  for (const locale of ['en', 'si', 'ta'] as const) {
    router.get(`${prefix(locale)}/checkout/:id`, (ctx) => pages.show(ctx, locale));
    router.post(`${prefix(locale)}/checkout/:id/pay`, (ctx) => pages.pay(ctx, locale));
    router.get(`${prefix(locale)}/checkout/:id/return`, (ctx) => pages.returned(ctx, locale));
  }
  return router;
}
