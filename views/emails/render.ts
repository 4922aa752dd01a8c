// A customer email, rendered: its subject, plain text and HTML (one frame for every kind, every
// value escaped), in the customer's language, with amounts as Rs. 1,500.00 and dates in Sri
// Lankan time. Pure: the caller decides the facts, the time included (a test clock's).
import { SCHEME_NAMES, type CardScheme } from '../../domain/card';
import type { Locale } from '../../domain/locale';
import { formatRupees } from '../../domain/money';
import { escapeHtml } from '../../web/html';
import type { EmailKind } from '../../domain/emails';
import { EMAIL_WORDS } from './messages';
import { summaryRows, type InvoiceSummary } from '../invoice-summary';

type Card = { scheme: CardScheme; last4: string };

/** What an invoice's amount due is less than its total by: the credit balance it used and its credit notes. */
export interface InvoiceCredit {
  appliedCents: number;
  notesCents: number;
}

/** The lines of an invoice's credit, each shown only when not 0, as a deduction. */
function creditLines(locale: Locale, credit: InvoiceCredit | undefined): string[] {
  if (credit === undefined) return [];
  const words = EMAIL_WORDS[locale];
  return [
    ...(credit.appliedCents === 0 ? [] : [fill(words.creditApplied, { credit: formatRupees(-credit.appliedCents) })]),
    ...(credit.notesCents === 0 ? [] : [fill(words.creditNotes, { credit: formatRupees(-credit.notesCents) })]),
  ];
}

/** What each kind of email tells. */
export type EmailContent =
  | { kind: 'receipt'; amountCents: number; description: string; paidAt: Date; card: Card | null; paymentId: string }
  | { kind: 'card_saved'; card: Card }
  | { kind: 'invoice' | 'invoice_reminder' | 'invoice_overdue'; number: string; amountCents: number; dueDate: Date; link: string; credit?: InvoiceCredit; summary?: InvoiceSummary | null }
  | { kind: 'payment_failed'; number: string; amountCents: number; nextAttemptAt: Date | null; link: string; summary?: InvoiceSummary | null }
  | { kind: 'trial_will_end'; product: string; trialEnd: Date; amountCents: number }
  | { kind: 'subscription_canceled'; product: string; canceledAt: Date };

/** Who the email is from and to. */
export interface EmailParties {
  merchant: string;
  customerName: string | null;
}

export interface RenderedEmail {
  kind: EmailKind;
  subject: string;
  text: string;
  html: string;
}

// Made once: a formatter costs far more to make than to use (every receipt formats a date).
const DATE_FORMATS: Record<Locale, Intl.DateTimeFormat> = {
  en: new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'Asia/Colombo' }),
  si: new Intl.DateTimeFormat('si-LK', { dateStyle: 'long', timeZone: 'Asia/Colombo' }),
  ta: new Intl.DateTimeFormat('ta-LK', { dateStyle: 'long', timeZone: 'Asia/Colombo' }),
};

/** A date as Sri Lankans read it, in the customer's language (emails and hosted pages). */
export function formatDate(locale: Locale, at: Date): string {
  return DATE_FORMATS[locale].format(at);
}

/** The placeholders' values of the content, and its link. */
function facts(locale: Locale, content: EmailContent): { values: Record<string, string>; link?: string } {
  const date = (at: Date) => formatDate(locale, at);
  const card = (c: Card) => `${SCHEME_NAMES[c.scheme]} •••• ${c.last4}`;
  switch (content.kind) {
    case 'receipt':
      return { values: { amount: formatRupees(content.amountCents), description: content.description, date: date(content.paidAt), card: content.card ? card(content.card) : '', paymentId: content.paymentId } };
    case 'card_saved':
      return { values: { card: card(content.card) } };
    case 'invoice':
    case 'invoice_reminder':
    case 'invoice_overdue':
      return { values: { number: content.number, amount: formatRupees(content.amountCents), dueDate: date(content.dueDate) }, link: content.link };
    case 'payment_failed': {
      const words = EMAIL_WORDS[locale];
      const retry = content.nextAttemptAt === null ? words.noRetry : fill(words.retryOn, { nextAttempt: date(content.nextAttemptAt) });
      return { values: { number: content.number, amount: formatRupees(content.amountCents), retry }, link: content.link };
    }
    case 'trial_will_end':
      return { values: { product: content.product, trialEnd: date(content.trialEnd), amount: formatRupees(content.amountCents) } };
    case 'subscription_canceled':
      return { values: { product: content.product, date: date(content.canceledAt) } };
  }
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`email template: no value for {${key}}`);
    return value;
  });
}

export function renderEmail(locale: Locale, parties: EmailParties, content: EmailContent): RenderedEmail {
  const words = EMAIL_WORDS[locale];
  const kind = words.kinds[content.kind];
  const { values, link } = facts(locale, content);
  const all: Record<string, string> = { ...values, merchant: parties.merchant, customer: parties.customerName ?? '' };
  // A receipt without a card (none reported) leaves out the line that names it.
  const filled = kind.paragraphs.filter((p) => !(p.includes('{card}') && all.card === '')).map((p) => fill(p, all));
  // An invoice's discount and taxes, when it has any, below what it says.
  const rows = 'summary' in content && content.summary != null ? summaryRows(locale, content.summary) : [];
  // An invoice's credit: below its total when the email shows one (as the hosted page does), so
  // that the amounts read down to the amount due; else under the paragraph that names that amount.
  const credit = 'credit' in content ? creditLines(locale, content.credit) : [];
  const creditBelowTotal = rows.length > 0 ? credit : [];
  const paragraphs = rows.length > 0 ? filled : [...filled.slice(0, 1), ...credit, ...filled.slice(1)];
  const greeting = fill(parties.customerName === null ? words.hello : words.helloNamed, all);
  const footer = fill(words.footer, all);
  const subject = fill(kind.subject, all);
  const action = link !== undefined && kind.action !== undefined ? { label: kind.action, link } : undefined;
  const summaryText = [...rows.map((row) => `${row.label}: ${formatRupees(row.amountCents)}`), ...creditBelowTotal].join('\n');
  const summaryHtml = rows.length === 0 ? '' : `<table style="border-collapse:collapse;margin:8px 0">${rows.map((row) => `<tr><td style="padding:2px 16px 2px 0">${escapeHtml(row.label)}</td><td style="padding:2px 0;text-align:right">${escapeHtml(formatRupees(row.amountCents))}</td></tr>`).join('')}</table>`;
  const text = [greeting, ...paragraphs, ...(rows.length > 0 ? [summaryText] : []), ...(action ? [`${action.label}: ${action.link}`] : []), '--', footer].join('\n\n');
  const html = `<!doctype html>
<html lang="${locale}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:24px;background:#f4f5f7;font-family:'Noto Sans','Noto Sans Sinhala','Noto Sans Tamil',Arial,sans-serif;color:#1f2933">
<div style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:24px">
<p style="font-weight:600">${escapeHtml(parties.merchant)}</p>
<p>${escapeHtml(greeting)}</p>
${[...paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`), ...(summaryHtml === '' ? [] : [summaryHtml]), ...creditBelowTotal.map((p) => `<p>${escapeHtml(p)}</p>`)].join('\n')}
${action ? `<p><a href="${escapeHtml(action.link)}" style="display:inline-block;background:#1b5e20;color:#ffffff;padding:10px 18px;border-radius:6px;text-decoration:none">${escapeHtml(action.label)}</a></p>` : ''}
<p style="color:#6b7280;font-size:12px">${escapeHtml(footer)}</p>
</div></body></html>`;
  return { kind: content.kind, subject, text, html };
}
