// Delete an invoice item while it is pending (DELETE /v1/invoice_items/{id}): the item as it was,
// gone; 409 invoice_item_invoiced once an invoice has taken it (the delete and the taking are one
// conditional write each on the row: db/invoice-items.ts).
import { deletePendingInvoiceItem, type InvoiceItemRow } from '../../db/invoice-items';
import { ApiError } from '../../domain/errors';
import type { TransactionContext } from '../context';

export async function deleteInvoiceItem(ctx: TransactionContext, item: InvoiceItemRow): Promise<InvoiceItemRow> {
  const deleted = await deletePendingInvoiceItem(ctx.db, item.id);
  if (deleted === undefined) {
    const { invoice_id: invoiceId } = (await ctx.db('invoice_items').where({ id: item.id }).first('invoice_id')) as Pick<InvoiceItemRow, 'invoice_id'>;
    throw new ApiError('invoice_item_invoiced', `The invoice item ${item.id} is on the invoice ${invoiceId}: it stays there (void that invoice, or issue a credit note on it).`);
  }
  return deleted;
}
