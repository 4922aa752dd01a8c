// Delete an invoice item while it is pending (DELETE /v1/invoice_items/{id}): the item as it was,
// gone; 409 invoice_item_invoiced once an invoice has taken it (the delete and the taking are one
// conditional write each on the row: db/invoice-items.ts); 404 when another delete got there first.
import { deletePendingInvoiceItem, type InvoiceItemRow } from '../../db/invoice-items';
import { ApiError } from '../../domain/errors';
import type { TransactionContext } from '../context';

export async function deleteInvoiceItem(ctx: TransactionContext, item: InvoiceItemRow): Promise<InvoiceItemRow> {
  const deleted = await deletePendingInvoiceItem(ctx.db, item.id);
  if (deleted === undefined) {
    const taken = (await ctx.db('invoice_items').where({ id: item.id }).first('invoice_id')) as Pick<InvoiceItemRow, 'invoice_id'> | undefined;
    // Deleted by another request since it was found.
    if (taken === undefined) throw new ApiError('NOT_FOUND', `No invoice item with id ${item.id}.`);
    throw new ApiError('invoice_item_invoiced', `The invoice item ${item.id} is on the invoice ${taken.invoice_id}: it stays there (void that invoice, or issue a credit note on it).`);
  }
  return deleted;
}
