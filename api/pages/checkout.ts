// The hosted checkout pages at {checkout_url}/checkout/<id> (and /si/..., /ta/...): the order,
// the customer's details when the checkout has none, the card-keeping consent, and a pay action
// that hands the customer to the processor's page. Server-rendered forms: no JavaScript needed.
import Router from '@koa/router';
import type { Context } from 'koa';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { accountRefusal } from '../../domain/account-rules';
import { looksLikeCardNumber, SCHEME_NAMES } from '../../domain/card';
import { checkoutClosureRefusal } from '../../domain/checkout-rules';
import { isEmailAddress } from '../../domain/email-address';
import { ApiError, type Reason } from '../../domain/errors';
import type { Locale } from '../../domain/locale';
import { centsFromDb, formatRupees } from '../../domain/money';
import { normaliseSriLankanPhone } from '../../domain/phone';
import { findAccount } from '../../db/accounts';
import { findCheckout, type CheckoutRow } from '../../db/checkouts';
import { findInvoice } from '../../db/invoices';
import { findPayment, type PaymentRow } from '../../db/payments';
import { awaitAttemptOutcome } from '../../services/checkouts/lifetime';
import { payCheckout } from '../../services/checkouts/pay';
import { invoicePaymentRefusal } from '../../services/invoices/open-checkout';
import type { ProcessorServiceDeps } from '../../services/context';
import { escapeHtml } from '../../web/html';
import { createCsrf, CSRF_FIELD } from './csrf';
import { readForm } from '../../web/form';
import { hostedPage, localePrefix, orderSummary, pageLimiter } from './hosted-page';
import { declineKey, say, type MessageKey } from './messages';

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
  /**
   * Why nothing can be paid now, or null: the account takes no payment (suspended), as the API's
   * writes refuse it too; or the checkout's invoice is no longer open, or is being charged
   * otherwise (Pay checks it again under the invoice's lock).
   */
  refusal: ApiError | null;
}

interface FormState {
  values: { name?: string; email?: string; phone?: string };
  problems: Partial<Record<'name' | 'email' | 'phone', MessageKey>>;
  reason?: Reason;
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
  const pagePath = (locale: Locale, id: string) => `${localePrefix(locale)}/checkout/${id}`;

  const load = async (id: string): Promise<View | undefined> => {
    if (!ID.test(id)) return undefined;
    const checkout = await findCheckout(db, id);
    if (!checkout) return undefined;
    const payment = await findPayment(db, checkout.payment_id);
    const account = (await findAccount(db, checkout.account_id))!;
    // An attempt of its own with the processor counts as the invoice's charge in flight: only a payment not yet begun asks.
    const invoice = payment.invoice_id === null || payment.status === 'processing' ? undefined : await findInvoice(db, payment.invoice_id);
    const refusal = accountRefusal(account, checkout.mode) ?? (invoice === undefined ? null : await invoicePaymentRefusal(db, invoice));
    return { checkout, payment, merchant: account.name, refusal };
  };

  const { render, message, paymentRefused } = hostedPage<View>(pagePath, (view) => ({ id: view.checkout.id, mode: view.checkout.mode, merchant: view.merchant }));

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
      // A checkout of an invoice, which was closed, paid or is being charged since the checkout was made.
      case 'invoice_not_open':
        return message(ctx, locale, view, 409, 'invoiceClosedTitle', 'notOpenText', 'invoice_not_open');
      case 'invoice_payment_pending':
        return message(ctx, locale, view, 409, 'invoicePendingTitle', 'invoicePendingText', 'invoice_payment_pending');
      default:
        if (paymentRefused(ctx, locale, view, refusal)) return;
        if (refusal.code === 'NOT_SUPPORTED') return message(ctx, locale, view, 501, 'unavailable', null);
        throw refusal;
    }
  };

  /** Paid, expired (or past its time), or the account refuses payments: nothing can be paid. */
  const payable = (view: View): ApiError | null => {
    return checkoutClosureRefusal(view.checkout, view.payment.status, clock.now()) ?? view.refusal;
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
      if (!isEmailAddress(values.email)) problems.email = 'emailInvalid';
      const phone = values.phone === '' ? null : normaliseSriLankanPhone(values.phone);
      if (values.phone !== '' && phone === null) problems.phone = 'phoneInvalid';
      if (Object.keys(problems).length > 0) return payPage(ctx, locale, view, { values, problems, reason: 'details_invalid' }, 400);
      customer = { name: values.name, email: values.email, phone };
    }

    const cardConsent = form.saveCard === 'yes' ? { locale, wording: say(locale, 'saveCard', { merchant: view.merchant }) } : null;
    const returnUrl = (attempt: number) => `${deps.config.publicBaseUrl}${pagePath(locale, view.checkout.id)}/return?attempt=${attempt}`;
    let session: { redirectUrl: string };
    try {
      session = await payCheckout(deps, { checkoutId: view.checkout.id, customer, cardConsent, locale, merchantName: view.merchant, returnUrl }, view.checkout);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // The processor did not answer (a gateway's outage): the attempt is kept, and the page says
      // to press Pay again, which goes on with the same attempt.
      if (err.code === 'SERVICE_UNAVAILABLE') return payPage(ctx, locale, (await load(view.checkout.id)) ?? view, { values: {}, problems: {} }, 503);
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

  const limited = pageLimiter(deps.limiter, (ctx, locale) => message(ctx, locale, undefined, 429, 'tooManyRequests', null));
  const pages = { show: limited('page GET /checkout/:id', show), pay: limited('page POST /checkout/:id/pay', pay), returned: limited('page GET /checkout/:id/return', returned) };

  for (const locale of ['en', 'si', 'ta'] as const) {
    router.get(`${localePrefix(locale)}/checkout/:id`, (ctx) => pages.show(ctx, locale));
    router.post(`${localePrefix(locale)}/checkout/:id/pay`, (ctx) => pages.pay(ctx, locale));
    router.get(`${localePrefix(locale)}/checkout/:id/return`, (ctx) => pages.returned(ctx, locale));
  }
  return router;
}
