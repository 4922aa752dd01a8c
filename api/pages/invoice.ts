// The hosted invoice page at {base}/invoice/<id> (and /si/..., /ta/...): the merchant, the invoice's
// number, lines (with its discount and taxes, when it has any, and the credit balance it used and
// its credit notes below the total), amount due and due date, and while it is open a button that
// makes the customer a
// checkout of the amount due and sends them to it (services/invoices/open-checkout.ts: the same one
// again while it is open; the button's handling is checkout-button.ts's, shared with the payment
// link's page); a paid invoice's page is its receipt (number, lines, amount paid, date paid, and
// the card that paid it), and a voided or uncollectible one says so; neither has a button.
// Server-rendered: no JavaScript.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { SCHEME_NAMES, type CardScheme } from '../../domain/card';
import { ApiError } from '../../domain/errors';
import { idPattern } from '../../domain/ids';
import { invoicePagePath } from '../../domain/invoices';
import type { Locale } from '../../domain/locale';
import { centsFromDb, formatRupees } from '../../domain/money';
import { findAccount, type AccountRecord } from '../../db/accounts';
import { findCustomer } from '../../db/customers';
import type { InvoiceRow } from '../../db/invoices';
import type { ServiceDeps } from '../../services/context';
import { invoicePaymentRefusal, openInvoiceCheckout } from '../../services/invoices/open-checkout';
import { formatDate } from '../../views/emails/render';
import { summaryRows, type InvoiceSummary } from '../../views/invoice-summary';
import { readInvoiceSummary } from '../../services/invoices/summary';
import { escapeHtml } from '../../web/html';
import { checkoutButtonRouter, type CheckoutButtonDeps } from './checkout-button';
import { hostedPage } from './hosted-page';
import { say, type MessageKey } from './messages';

export type InvoicePagesDeps = ServiceDeps & CheckoutButtonDeps;

const ID = new RegExp(idPattern('invoice'));

interface View {
  invoice: InvoiceRow;
  merchant: string;
  /** The card that paid it (a paid invoice's receipt); null when none did. */
  card: { scheme: CardScheme; last4: string } | null;
  /** Whether its checkout carries the customer's details (they have a name: open-checkout.ts), so it asks only for the card. */
  knownCustomer: boolean;
  /** Its discount and taxes, when it has any. */
  summary: InvoiceSummary | null;
}

/** Below the total, each when not 0: the credit balance the invoice used and its credit notes, as deductions. */
function creditRows(locale: Locale, invoice: InvoiceRow): string {
  const rows: [MessageKey, number][] = [['creditApplied', centsFromDb(invoice.credit_applied_cents)], ['creditNotes', centsFromDb(invoice.credit_notes_cents)]];
  return rows
    .filter(([, cents]) => cents !== 0)
    .map(([key, cents]) => `<tr><th scope="row" colspan="2">${escapeHtml(say(locale, key))}</th><td class="num">${escapeHtml(formatRupees(-cents))}</td></tr>`)
    .join('');
}

export function invoicePagesRouter(deps: InvoicePagesDeps): Router {
  const { db } = deps;

  // A draft has no page: only a finalised invoice is shown to its customer.
  const load = async (id: string): Promise<View | undefined> => {
    if (!ID.test(id)) return undefined;
    const invoice = (await db('invoices').where({ id }).first()) as InvoiceRow | undefined;
    if (invoice === undefined || invoice.status === 'draft') return undefined;
    const account = (await findAccount(db, invoice.account_id)) as AccountRecord;
    const paidWith = invoice.status === 'paid' && invoice.paid_payment_id != null
      ? ((await db('payments').where({ id: invoice.paid_payment_id }).first('card_scheme', 'card_last4')) as { card_scheme: CardScheme | null; card_last4: string | null })
      : undefined;
    const card = paidWith?.card_scheme == null || paidWith.card_last4 === null ? null : { scheme: paidWith.card_scheme, last4: paidWith.card_last4 };
    const knownCustomer = (await findCustomer(db, invoice.customer_id)).name !== null;
    return { invoice, merchant: account.name, card, knownCustomer, summary: await readInvoiceSummary(db, invoice) };
  };

  const answers = hostedPage<View>(invoicePagePath, (view) => ({ id: view.invoice.id, mode: view.invoice.mode, merchant: view.merchant }));
  const { message, render } = answers;

  /** A paid invoice's receipt: what was paid, when, and with which card, above its lines. */
  const receipt = (ctx: Context, locale: Locale, view: View) => {
    const { invoice, merchant, card } = view;
    const title = say(locale, 'invoicePaidTitle');
    const facts = [
      say(locale, 'invoiceAmountPaid', { amount: formatRupees(centsFromDb(invoice.amount_paid_cents)) }),
      ...(invoice.paid_at === null ? [] : [say(locale, 'invoicePaidOn', { date: formatDate(locale, invoice.paid_at) })]),
      ...(card === null ? [] : [say(locale, 'paidCard', { scheme: SCHEME_NAMES[card.scheme], last4: card.last4 })]),
    ];
    render(ctx, locale, view, 200, title, `<section class="panel"><h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(say(locale, 'invoicePaidText', { merchant }))}</p>
<h2>${escapeHtml(say(locale, 'invoiceTitle', { merchant, number: invoice.number ?? '' }))}</h2>
${facts.map((fact) => `<p>${escapeHtml(fact)}</p>`).join('\n')}
</section>
${content(locale, view).summary}`);
  };

  /** Why the invoice cannot be paid now, as a page in the customer's language: a paid one says so without a button. */
  const ownRefusal = (ctx: Context, locale: Locale, view: View, refusal: ApiError): boolean => {
    if (refusal.reason === 'invoice_not_open') {
      if (view.invoice.status === 'paid') receipt(ctx, locale, view);
      else message(ctx, locale, view, 409, 'invoiceClosedTitle', 'invoiceClosedText', 'invoice_not_open');
      return true;
    }
    if (refusal.reason === 'invoice_payment_pending') {
      message(ctx, locale, view, 409, 'invoicePendingTitle', 'invoicePendingText', 'invoice_payment_pending');
      return true;
    }
    return false;
  };

  const content = (locale: Locale, view: View) => {
    const { invoice, merchant } = view;
    const title = say(locale, 'invoiceTitle', { merchant, number: invoice.number ?? '' });
    const rows = invoice.lines
      .map((line) => `<tr><td>${escapeHtml(line.description)}</td><td class="num">${line.quantity}</td><td class="num">${escapeHtml(formatRupees(line.amountCents))}</td></tr>`)
      .join('');
    // With a discount or taxes: the subtotal, each of them, then the total (their words are the emails').
    const footRows = view.summary === null ? [{ label: say(locale, 'total'), amountCents: centsFromDb(invoice.total_cents) }] : summaryRows(locale, view.summary);
    const totals = footRows.map((row) => `<tr><th scope="row" colspan="2">${escapeHtml(row.label)}</th><td class="num">${escapeHtml(formatRupees(row.amountCents))}</td></tr>`).join('');
    const due = invoice.due_date === null ? '' : `<p>${escapeHtml(say(locale, 'invoiceDueOn', { date: formatDate(locale, invoice.due_date) }))}</p>`;
    const top = `<h1>${escapeHtml(title)}</h1>
<p><strong>${escapeHtml(say(locale, 'invoiceAmountDue', { amount: formatRupees(centsFromDb(invoice.amount_due_cents)) }))}</strong></p>
${due}`;
    const summary = `<section class="panel" aria-labelledby="summary-title">
<h2 id="summary-title">${escapeHtml(say(locale, 'orderSummary'))}</h2>
<table>
<thead><tr><th scope="col">${escapeHtml(say(locale, 'item'))}</th><th scope="col" class="num">${escapeHtml(say(locale, 'quantity'))}</th><th scope="col" class="num">${escapeHtml(say(locale, 'amount'))}</th></tr></thead>
<tbody>${rows}</tbody>
<tfoot>${totals}${creditRows(locale, invoice)}</tfoot>
</table>
</section>`;
    return { title, top, summary };
  };

  return checkoutButtonRouter<View>(deps, {
    path: invoicePagePath,
    answers,
    load,
    notFoundTitle: 'invoiceNotFoundTitle',
    idOf: (view) => view.invoice.id,
    // Checked again on the button's post before its token, so a page paid meanwhile never offers Pay.
    refusal: (view) => invoicePaymentRefusal(db, view.invoice),
    ownRefusal,
    content,
    button: 'invoicePay',
    hint: (view) => (view.knownCustomer ? 'invoiceHint' : 'linkHint'),
    openCheckout: (view, locale) => openInvoiceCheckout(deps, view.invoice.id, locale),
  });
}
