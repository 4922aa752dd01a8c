// The hosted invoice page at {base}/invoice/<id> (and /si/..., /ta/...): the merchant, the invoice's
// number, lines, amount due and due date, and while it is open a button that makes the customer a
// checkout of the amount due and sends them to it (services/invoices/open-checkout.ts); a paid,
// voided or uncollectible invoice says so. Server-rendered: no JavaScript.
import Router from '@koa/router';
import type { Context } from 'koa';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { ApiError } from '../../domain/errors';
import { idPattern } from '../../domain/ids';
import { invoicePagePath } from '../../domain/invoices';
import type { Locale } from '../../domain/locale';
import { centsFromDb, formatRupees } from '../../domain/money';
import { findAccount, type AccountRecord } from '../../db/accounts';
import type { InvoiceRow } from '../../db/invoices';
import type { ServiceDeps } from '../../services/context';
import { invoicePaymentRefusal, openInvoiceCheckout } from '../../services/invoices/open-checkout';
import { formatDate } from '../../views/emails/render';
import { escapeHtml } from '../../web/html';
import { readForm } from '../../web/form';
import { createCsrf, CSRF_FIELD } from './csrf';
import { hostedPage, pageLimiter } from './hosted-page';
import { say } from './messages';

export interface InvoicePagesDeps extends ServiceDeps {
  /** The API's limiter: each page has the same per-address budget as each API endpoint. */
  limiter: RateLimiterAbstract;
}

const ID = new RegExp(idPattern('invoice'));

interface View {
  invoice: InvoiceRow;
  merchant: string;
}

export function invoicePagesRouter(deps: InvoicePagesDeps): Router {
  const { db } = deps;
  const router = new Router({ strict: true, sensitive: true });
  const csrf = createCsrf(deps.config);

  // A draft has no page: only a finalised invoice is shown to its customer.
  const load = async (id: string): Promise<View | undefined> => {
    if (!ID.test(id)) return undefined;
    const invoice = (await db('invoices').where({ id }).first()) as InvoiceRow | undefined;
    if (invoice === undefined || invoice.status === 'draft') return undefined;
    const account = (await findAccount(db, invoice.account_id)) as AccountRecord;
    return { invoice, merchant: account.name };
  };

  const { render, message, paymentRefused } = hostedPage<View>(invoicePagePath, (view) => ({ id: view.invoice.id, mode: view.invoice.mode, merchant: view.merchant }));

  /** Why the invoice cannot be paid now, as a page in the customer's language. */
  const refused = (ctx: Context, locale: Locale, view: View, refusal: ApiError) => {
    if (refusal.reason === 'invoice_not_open') {
      if (view.invoice.status === 'paid') return message(ctx, locale, view, 200, 'invoicePaidTitle', 'invoicePaidText');
      return message(ctx, locale, view, 409, 'invoiceClosedTitle', 'invoiceClosedText', 'invoice_not_open');
    }
    if (refusal.reason === 'invoice_payment_pending') return message(ctx, locale, view, 409, 'invoicePendingTitle', 'invoicePendingText', 'invoice_payment_pending');
    if (!paymentRefused(ctx, locale, view, refusal)) throw refusal;
  };

  const invoicePage = (ctx: Context, locale: Locale, view: View, reason?: 'page_changed') => {
    const { invoice, merchant } = view;
    const number = invoice.number ?? '';
    const rows = invoice.lines
      .map((line) => `<tr><td>${escapeHtml(line.description)}</td><td class="num">${line.quantity}</td><td class="num">${escapeHtml(formatRupees(line.amountCents))}</td></tr>`)
      .join('');
    const due = invoice.due_date === null ? '' : `<p>${escapeHtml(say(locale, 'invoiceDueOn', { date: formatDate(locale, invoice.due_date) }))}</p>`;
    render(ctx, locale, view, reason ? 409 : 200, say(locale, 'invoiceTitle', { merchant, number }), `
<h1>${escapeHtml(say(locale, 'invoiceTitle', { merchant, number }))}</h1>
<p><strong>${escapeHtml(say(locale, 'invoiceAmountDue', { amount: formatRupees(centsFromDb(invoice.amount_due_cents)) }))}</strong></p>
${due}
${reason ? `<p role="alert">${escapeHtml(say(locale, 'linkPageChanged'))}</p>` : ''}
<section class="panel" aria-labelledby="summary-title">
<h2 id="summary-title">${escapeHtml(say(locale, 'orderSummary'))}</h2>
<table>
<thead><tr><th scope="col">${escapeHtml(say(locale, 'item'))}</th><th scope="col" class="num">${escapeHtml(say(locale, 'quantity'))}</th><th scope="col" class="num">${escapeHtml(say(locale, 'amount'))}</th></tr></thead>
<tbody>${rows}</tbody>
<tfoot><tr><th scope="row" colspan="2">${escapeHtml(say(locale, 'total'))}</th><td class="num">${escapeHtml(formatRupees(centsFromDb(invoice.total_cents)))}</td></tr></tfoot>
</table>
</section>
<form method="post" action="${invoicePagePath(locale, invoice.id)}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${escapeHtml(csrf.token(ctx, invoice.id))}">
<button type="submit">${escapeHtml(say(locale, 'invoicePay'))}</button>
<p class="hint">${escapeHtml(say(locale, 'linkHint'))}</p>
</form>`, reason);
  };

  const show = async (ctx: Context, locale: Locale) => {
    const view = await load(String(ctx.params.id));
    if (!view) return message(ctx, locale, undefined, 404, 'invoiceNotFoundTitle', null);
    const refusal = await invoicePaymentRefusal(db, view.invoice);
    if (refusal !== null) return refused(ctx, locale, view, refusal);
    invoicePage(ctx, locale, view);
  };

  /** The button: a checkout of the amount due, and off to its page (in the language of this one). */
  const start = async (ctx: Context, locale: Locale) => {
    const view = await load(String(ctx.params.id));
    if (!view) return message(ctx, locale, undefined, 404, 'invoiceNotFoundTitle', null);
    const form = await readForm(ctx);
    // Paid (or closed) meanwhile: said so before the token is looked at, so no page offers Pay then.
    const refusal = await invoicePaymentRefusal(db, view.invoice);
    if (refusal !== null) return refused(ctx, locale, view, refusal);
    // Another site's post, or a page from before the browser's cookie: nothing is made.
    if (!csrf.accepts(ctx, form, view.invoice.id)) return invoicePage(ctx, locale, view, 'page_changed');
    let url: string;
    try {
      url = (await openInvoiceCheckout(deps, view.invoice, locale)).checkout.url;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return refused(ctx, locale, view, err);
    }
    ctx.status = 303;
    ctx.redirect(url);
  };

  const limited = pageLimiter(deps.limiter, (ctx, locale) => message(ctx, locale, undefined, 429, 'tooManyRequests', null));
  const pages = { show: limited('page GET /invoice/:id', show), start: limited('page POST /invoice/:id', start) };

  for (const locale of ['en', 'si', 'ta'] as const) {
    router.get(invoicePagePath(locale, ':id'), (ctx) => pages.show(ctx, locale));
    router.post(invoicePagePath(locale, ':id'), (ctx) => pages.start(ctx, locale));
  }
  return router;
}
