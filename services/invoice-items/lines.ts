// Invoice items as an invoice's lines: taken once by the invoice made now (written in this
// transaction), or those the next invoice would take (a preview's). A subscription's invoice takes
// the subscription's items and the customer's tied to none; an invoice of no subscription, the latter.
import { pendingInvoiceItems, takeInvoiceItems, type InvoiceItemRow } from '../../db/invoice-items';
import { addedLines, type InvoiceLine } from '../../domain/invoices';
import { centsFromDb } from '../../domain/money';
import type { ServiceContext, TransactionContext } from '../context';

// As a subscription's `addInvoiceItems` are: no price, no period, not a proration.
const asLines = (items: readonly InvoiceItemRow[]): InvoiceLine[] =>
  addedLines(items.map((item) => ({ description: item.description, quantity: item.quantity, unitAmountCents: centsFromDb(item.unit_amount_cents), discountable: item.discountable })));

export async function takeInvoiceItemLines(ctx: TransactionContext, customerId: string, subscriptionId: string | null, invoiceId: string): Promise<InvoiceLine[]> {
  return asLines(await takeInvoiceItems(ctx.db, customerId, subscriptionId, invoiceId));
}

export async function pendingInvoiceItemLines(ctx: Pick<ServiceContext, 'db'>, customerId: string, subscriptionId: string | null): Promise<InvoiceLine[]> {
  return asLines(await pendingInvoiceItems(ctx.db, customerId, subscriptionId));
}
