// Amounts below a card payment's minimum (DESIGN.md, "Invoice arithmetic"): an invoice finalised
// with 1 to 999 cents due is neither charged nor offered a checkout. It is paid by carrying the
// amount onto the customer's next invoice of any kind (a renewal, a trial's end, one made by hand),
// which takes it once as a line naming the invoice's number (priceId null, not a proration). (An
// invoice whose total is below zero is paid at 0 and its total goes to the customer's credit
// balance instead: services/balance/apply.ts.) The invoice paid so shows `amountPaidCents` = the amount, `attemptCount` 0 and no payment; its
// carried_amounts row (migration 021) is what tells it from one a payment paid.
import { insertCarriedAmount, pendingCarriedAmounts, takeCarriedAmounts, type CarriedAmount } from '../../db/carried-amounts';
import type { InvoiceRow } from '../../db/invoices';
import { carriedLine, type InvoiceLine } from '../../domain/invoices';
import { centsFromDb } from '../../domain/money';
import type { ServiceContext, TransactionContext } from '../context';
import { recordInvoicePaid } from './collect';

/** The finalised `invoice` paid by carrying its amount due over: invoice.paid, and its subscription running. */
export async function carryOver(ctx: TransactionContext, invoice: InvoiceRow, now: Date): Promise<InvoiceRow> {
  await insertCarriedAmount(ctx.db, {
    source_invoice_id: invoice.id,
    account_id: invoice.account_id,
    mode: invoice.mode,
    customer_id: invoice.customer_id,
    subscription_id: invoice.subscription_id,
    amount_cents: invoice.amount_due_cents,
    invoice_id: null,
    created_at: now,
  });
  return recordInvoicePaid(ctx, invoice, now);
}

const asLines = (amounts: readonly CarriedAmount[]): InvoiceLine[] => amounts.map((a) => carriedLine(a.source_number, centsFromDb(a.amount_cents)));

/** The lines of the customer's pending amounts, now taken by the invoice `invoiceId` (written in this transaction). */
export async function takeCarriedLines(ctx: TransactionContext, customerId: string, invoiceId: string): Promise<InvoiceLine[]> {
  return asLines(await takeCarriedAmounts(ctx.db, customerId, invoiceId));
}

/** The lines the customer's next invoice will take (a preview's). */
export async function pendingCarriedLines(ctx: Pick<ServiceContext, 'db'>, customerId: string): Promise<InvoiceLine[]> {
  return asLines(await pendingCarriedAmounts(ctx.db, customerId));
}
