// What the hosted pages share (a checkout's, a payment link's): the page around their content in
// the shopper's language, messages and payment refusals, the order's table, and the per-address
// rate limit on each page.
import type { Context } from 'koa';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Mode } from '../../domain/api-keys';
import type { ApiError, Reason } from '../../domain/errors';
import type { Locale } from '../../domain/locale';
import { centsFromDb, formatRupees } from '../../domain/money';
import type { PaymentRow } from '../../db/payments';
import { escapeHtml, htmlDocument, stylesheet } from '../../web/html';
import { FONT_FACE_CSS, SCRIPT_FONT_FAMILIES } from './assets';
import { LANGUAGE_NAMES, say, type MessageKey } from './messages';

/** What an order's table shows: a payment's columns (a payment link has the same). */
export type Purchase = Pick<PaymentRow, 'amount_cents' | 'description' | 'order' | 'reference'>;

/** Before a page's path: nothing for English, `/si` or `/ta`. */
export const localePrefix = (locale: Locale) => (locale === 'en' ? '' : `/${locale}`);

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

/** What is bought, as a table: a payment's, or what a payment link sells. */
export function orderSummary(locale: Locale, payment: Purchase): string {
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

/** What a hosted page is about: its id (in its path), its mode (the test banner), its merchant. */
export interface PageSubject {
  id: string;
  mode: Mode;
  merchant: string;
}

// The refusals of the services that open or take a payment, as every payment page shows them.
const PAYMENT_REFUSALS: Partial<Record<Reason, MessageKey>> = {
  monthly_limit_reached: 'limitReached',
  merchant_unavailable: 'suspended',
  merchant_not_live: 'suspended',
};

/**
 * The answers of one kind of page (at `path(locale, id)`) about its `View`: a whole page (`reason`
 * in the header X-Kasi-Reason, and in the heading's `data-reason` of a message), a message, and a
 * payment refusal. Without a view (no such object), the path's own id is used.
 */
export function hostedPage<View>(path: (locale: Locale, id: string) => string, subjectOf: (view: View) => PageSubject) {
  const render = (ctx: Context, locale: Locale, view: View | undefined, status: number, title: string, body: string, reason?: Reason) => {
    const subject = view === undefined ? undefined : subjectOf(view);
    const id = subject?.id ?? String(ctx.params.id);
    ctx.status = status;
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    if (reason) ctx.set('X-Kasi-Reason', reason);
    ctx.body = layout(locale, (l) => path(l, id), title, body, subject?.mode === 'test');
  };

  const message = (ctx: Context, locale: Locale, view: View | undefined, status: number, titleKey: MessageKey, textKey: MessageKey | null, reason?: Reason) => {
    const values: Record<string, string> = view === undefined ? {} : { merchant: subjectOf(view).merchant };
    const title = say(locale, titleKey, values);
    const text = textKey === null ? '' : `<p>${escapeHtml(say(locale, textKey, values))}</p>`;
    render(ctx, locale, view, status, title, `<section class="panel"><h1 data-reason="${reason ?? ''}">${escapeHtml(title)}</h1>${text}</section>`, reason);
  };

  /** Answers a payment refusal (the monthly limit, the account's standing) with 409; false for any other. */
  const paymentRefused = (ctx: Context, locale: Locale, view: View, refusal: ApiError): boolean => {
    const key = refusal.reason === undefined ? undefined : PAYMENT_REFUSALS[refusal.reason];
    if (key === undefined) return false;
    message(ctx, locale, view, 409, key, null, refusal.reason);
    return true;
  };

  return { render, message, paymentRefused };
}

type PageHandler = (ctx: Context, locale: Locale) => Promise<void>;

/**
 * Counts each request against its address and page (`bucket`, the same in every language), as the
 * API counts its endpoints; past the budget, `tooMany` answers (a page in the shopper's language)
 * with Retry-After.
 */
export function pageLimiter(limiter: RateLimiterAbstract, tooMany: (ctx: Context, locale: Locale) => void) {
  return (bucket: string, handler: PageHandler): PageHandler => async (ctx, locale) => {
    try {
      await limiter.consume(`${ctx.ip} ${bucket}`);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      ctx.set('Retry-After', String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))));
      return tooMany(ctx, locale);
    }
    return handler(ctx, locale);
  };
}
