// The hosted checkout pages at {checkout_url}/checkout/<id> (and /si/..., /ta/...): the order,
// the customer's details when the checkout has none, the card-keeping consent, and a pay action
// that hands the customer to the processor's page. Server-rendered forms: no JavaScript needed.
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Knex } from 'knex';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../../config';
import { DEFAULT_PLAN } from '../../config/plans';
import { looksLikeCardNumber, SCHEME_NAMES } from '../../domain/card';
import type { Clock } from '../../domain/clock';
import type { Reason } from '../../domain/errors';
import type { Locale } from '../../domain/locale';
import { centsFromDb, formatRupees } from '../../domain/money';
import { normaliseSriLankanPhone } from '../../domain/phone';
import { findCheckout, type CheckoutRow } from '../../db/checkouts';
import { monthlyUsageCents } from '../../db/monthly-usage';
import { findPayment, processorReference, type PaymentRow } from '../../db/payments';
import type { OrchestrationPort } from '../../orchestration';
import { WorkflowClosedError, WorkflowNotFoundError } from '../../orchestration/errors';
import { checkoutLifetimeStart } from '../../orchestration/starts';
import { attemptOutcomeUpdate, paymentAttemptedSignal } from '../../workflows/checkout-lifetime';
import type { Processors } from '../../processor';
import { escapeHtml, htmlDocument, stylesheet } from '../../web/html';
import { FONT_FACE_CSS, SCRIPT_FONT_FAMILIES } from './assets';
import { createCsrf, CSRF_FIELD } from './csrf';
import { readForm } from '../../web/form';
import { declineKey, LANGUAGE_NAMES, say, type MessageKey } from './messages';

export interface CheckoutPagesDeps {
  db: Knex;
  clock: Clock;
  config: Config;
  orchestration: OrchestrationPort;
  processors: Processors;
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
  /** A suspended account takes no payment on any path (the API refuses its writes too). */
  suspended: boolean;
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
    const account = (await db('accounts').where({ id: checkout.account_id }).first('name', 'status')) as { name: string; status: string };
    return { checkout, payment, merchant: account.name, suspended: account.status === 'suspended' };
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

  /** Expired (or past its time), paid, or closed: the page says so and nothing can be paid. */
  const closedState = (view: View, now: Date): 'expired' | 'not_open' | null => {
    if (view.checkout.status === 'completed' || view.payment.status === 'succeeded') return 'not_open';
    if (view.checkout.status === 'expired' || now >= view.checkout.expires_at) return 'expired';
    return null;
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
    if (view.checkout.status === 'completed' || view.payment.status === 'succeeded') return receipt(ctx, locale, view);
    if (closedState(view, clock.now()) === 'expired') return message(ctx, locale, view, 409, 'expiredTitle', 'expiredText', 'expired');
    if (view.suspended) return message(ctx, locale, view, 409, 'suspended', null, 'merchant_unavailable');
    payPage(ctx, locale, view, { values: {}, problems: {} });
  };

  const pay = async (ctx: Context, locale: Locale) => {
    const view = await load(String(ctx.params.id));
    if (!view) return message(ctx, locale, undefined, 404, 'notFoundTitle', null);
    const form = await readForm(ctx);
    const closed = closedState(view, clock.now());
    if (closed === 'not_open') return message(ctx, locale, view, 409, 'notOpenTitle', 'notOpenText', 'not_open');
    if (closed === 'expired') return message(ctx, locale, view, 409, 'expiredTitle', 'expiredText', 'expired');
    if (view.suspended) return message(ctx, locale, view, 409, 'suspended', null, 'merchant_unavailable');
    const processor = deps.processors.forMode(view.checkout.mode);
    if (processor === null) return message(ctx, locale, view, 501, 'unavailable', null);
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

    const outcome = await db.transaction(async (trx) => {
      const checkout = await findCheckout(trx, view.checkout.id, true);
      const payment = await findPayment(trx, view.payment.id, true);
      if (!checkout || checkout.status === 'completed' || payment.status === 'succeeded') return 'not_open' as const;
      if (checkout.status !== 'open' || clock.now() >= checkout.expires_at) return 'expired' as const;
      const patch: Record<string, unknown> = {};
      if (customer) Object.assign(patch, { customer_name: customer.name, customer_email: customer.email, customer_phone: customer.phone });
      if (checkout.save_card && form.saveCard === 'yes') {
        Object.assign(patch, { card_save: 'requested', card_consent_at: clock.now(), card_consent_locale: locale, card_consent_wording: say(locale, 'saveCard', { merchant: view.merchant }) });
      }
      let attempt = payment.attempts;
      // Still with the processor (the customer came back to this page): the same session again.
      if (payment.status !== 'processing') {
        // One at a time per account and mode, so two payments cannot both squeeze under the limit.
        await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`${checkout.account_id}:${checkout.mode}`]);
        const account = (await trx('accounts').where({ id: checkout.account_id }).first('plan', 'status')) as { plan: string; status: string };
        if (account.status === 'suspended') return 'merchant_unavailable' as const;
        const plan = deps.config.plans[account.plan] ?? deps.config.plans[DEFAULT_PLAN];
        const used = await monthlyUsageCents(trx, checkout.account_id, checkout.mode, clock.now());
        if (plan && used + centsFromDb(payment.amount_cents) > plan.monthlyLimitCents) return 'monthly_limit_reached' as const;
        attempt += 1;
        Object.assign(patch, { status: 'processing', attempts: attempt, failure_message: null, failure_code: null });
      }
      // Pay pressed again while the attempt is with the processor, with nothing new to keep: the
      // same processor session is opened again below, which shows where the payment stands.
      if (Object.keys(patch).length > 0) await trx('payments').where({ id: payment.id }).update(patch);
      return { attempt };
    });
    if (outcome === 'not_open') return message(ctx, locale, view, 409, 'notOpenTitle', 'notOpenText', 'not_open');
    if (outcome === 'expired') return message(ctx, locale, view, 409, 'expiredTitle', 'expiredText', 'expired');
    if (outcome === 'monthly_limit_reached') return message(ctx, locale, view, 409, 'limitReached', null, 'monthly_limit_reached');
    if (outcome === 'merchant_unavailable') return message(ctx, locale, view, 409, 'suspended', null, 'merchant_unavailable');
    const returnUrl = `${deps.config.publicBaseUrl}${pagePath(locale, view.checkout.id)}/return?attempt=${outcome.attempt}`;
    const session = await processor.openSession({
      reference: processorReference(view.payment.id, outcome.attempt),
      amountCents: centsFromDb(view.payment.amount_cents),
      merchantName: view.merchant,
      locale,
      returnUrl,
    });
    // The workflow asks the processor about the attempt from now on, whether or not the customer
    // comes back to the return page.
    await signalAttempt(view.checkout, outcome.attempt);
    ctx.status = 303;
    ctx.redirect(session.redirectUrl);
  };

  /**
   * Sends a message to the checkout's workflow, starting the workflow first if it is missing (lost
   * between commit and start, or not yet resumed). A closed workflow has nothing to add.
   */
  const toLifetime = async (checkout: CheckoutRow, message: (workflowId: string) => Promise<unknown>): Promise<void> => {
    const start = checkoutLifetimeStart(checkout);
    const send = () =>
      message(start.workflowId).catch((err: unknown) => {
        if (!(err instanceof WorkflowClosedError)) throw err;
      });
    try {
      await send();
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      await deps.orchestration.start(start);
      await send();
    }
  };

  /** Tells the checkout's workflow about an attempt: it asks the processor from then on. */
  const signalAttempt = (checkout: CheckoutRow, attempt: number) =>
    toLifetime(checkout, (workflowId) => deps.orchestration.signal(workflowId, paymentAttemptedSignal.name, [attempt]));

  /** Asks the checkout's workflow for the attempt's outcome: an update it answers once it has applied the attempt. */
  const attemptOutcome = (checkout: CheckoutRow, attempt: number) =>
    toLifetime(checkout, (workflowId) => deps.orchestration.update(workflowId, attemptOutcomeUpdate, [attempt]));

  /** Back from the processor: the lifetime workflow applies the outcome; we wait (a while) to show it. */
  const returned = async (ctx: Context, locale: Locale) => {
    const view = await load(String(ctx.params.id));
    if (!view) return message(ctx, locale, undefined, 404, 'notFoundTitle', null);
    const attempt = Number(ctx.query.attempt);
    if (Number.isSafeInteger(attempt) && attempt > 0 && view.payment.status === 'processing' && view.payment.attempts === attempt && view.checkout.status === 'open') {
      let timer: NodeJS.Timeout | undefined;
      // Past the wait the page says the payment is still being confirmed; the workflow carries on.
      const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, OUTCOME_WAIT_MS)));
      const outcome = attemptOutcome(view.checkout, attempt);
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
