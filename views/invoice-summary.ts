// What an invoice's adjustments add between its lines and its total, as the customer reads it on
// the hosted invoice page and in invoice emails: the subtotal, the discount (with its coupon's
// name) and each tax (its rate's name and percentage; an inclusive one marked as included in the
// prices), in their language. Nothing for an invoice with neither a discount nor taxes.
import type { InvoiceRow } from '../db/invoices';
import type { Locale } from '../domain/locale';
import { centsFromDb } from '../domain/money';
import { EMAIL_WORDS } from './emails/messages';

export interface InvoiceSummary {
  subtotalCents: number;
  discount: { couponName: string | null; amountCents: number } | null;
  taxes: { name: string; percentage: number; inclusive: boolean; amountCents: number }[];
  totalCents: number;
}

/** The names a summary shows: the coupon's (null when it has none) and the tax rates', by id. */
export interface SummaryNames {
  couponName: string | null;
  taxRateNames: ReadonlyMap<string, string>;
}

export function invoiceSummary(invoice: Pick<InvoiceRow, 'subtotal_cents' | 'discount_cents' | 'coupon_id' | 'taxes' | 'total_cents'>, names: SummaryNames): InvoiceSummary | null {
  if (invoice.coupon_id === null && invoice.taxes.length === 0) return null;
  return {
    subtotalCents: centsFromDb(invoice.subtotal_cents),
    discount: invoice.coupon_id === null ? null : { couponName: names.couponName, amountCents: centsFromDb(invoice.discount_cents) },
    taxes: invoice.taxes.map((tax) => ({ name: names.taxRateNames.get(tax.taxRateId) ?? '', percentage: tax.percentage, inclusive: tax.inclusive, amountCents: tax.amountCents })),
    totalCents: centsFromDb(invoice.total_cents),
  };
}

/** The summary's rows in `locale`, each a label and an amount (the discount negative), the total last. */
export function summaryRows(locale: Locale, summary: InvoiceSummary): { label: string; amountCents: number }[] {
  const words = EMAIL_WORDS[locale].summary;
  const fill = (template: string, values: Record<string, string>) => template.replace(/\{(\w+)\}/g, (_m, key: string) => values[key]!);
  return [
    { label: words.subtotal, amountCents: summary.subtotalCents },
    ...(summary.discount === null ? [] : [{ label: summary.discount.couponName === null ? words.discount : fill(words.discountNamed, { coupon: summary.discount.couponName }), amountCents: -summary.discount.amountCents }]),
    ...summary.taxes.map((tax) => ({ label: fill(tax.inclusive ? words.taxIncluded : words.taxAdded, { name: tax.name, percentage: String(tax.percentage) }), amountCents: tax.amountCents })),
    { label: words.total, amountCents: summary.totalCents },
  ];
}
