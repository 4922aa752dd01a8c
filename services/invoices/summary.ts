// An invoice's summary for its customer (views/invoice-summary.ts): the names of its coupon and tax
// rates read for it, only when it has a discount or taxes (one statement each).
import type { Knex } from 'knex';
import { findCoupon } from '../../db/coupons';
import type { InvoiceRow } from '../../db/invoices';
import { findTaxRates } from '../../db/tax-rates';
import { invoiceSummary, type InvoiceSummary } from '../../views/invoice-summary';

export async function readInvoiceSummary(db: Knex | Knex.Transaction, invoice: InvoiceRow): Promise<InvoiceSummary | null> {
  if (invoice.coupon_id === null && invoice.taxes.length === 0) return null;
  const coupon = invoice.coupon_id === null ? undefined : await findCoupon(db, invoice.coupon_id);
  const rates = invoice.taxes.length === 0 ? new Map() : await findTaxRates(db, invoice.taxes.map((tax) => tax.taxRateId));
  return invoiceSummary(invoice, { couponName: coupon?.name ?? null, taxRateNames: new Map([...rates.values()].map((rate) => [rate.id, rate.display_name])) });
}
