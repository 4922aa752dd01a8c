// What an invoice collected by sending tells its customer (DESIGN.md's emails; the spec's send and
// reminders): the invoice with its page's link when finalised and on POST /v1/invoices/{id}/send
// (invoice.sent), a reminder three days before its due date, and an overdue notice when the date
// passes (invoice.overdue). Each reminder goes out once, and only while the invoice is open.
import { recordEvent } from '../../db/events';
import { lockInvoice, updateInvoice, type InvoiceRow } from '../../db/invoices';
import { ApiError } from '../../domain/errors';
import { centsFromDb } from '../../domain/money';
import { invoiceView } from '../../views/invoice';
import type { ServiceDeps, TransactionContext } from '../context';
import { customerRecipient, keepEmail } from '../emails/keep';
import { inTransaction } from '../run';
import { readInvoiceSummary } from './summary';
import { billingNowOf } from '../test-clocks/billing-now';

type Kind = 'invoice' | 'invoice_reminder' | 'invoice_overdue';

async function emailInvoice(ctx: TransactionContext, invoice: InvoiceRow, kind: Kind, now: Date): Promise<void> {
  await keepEmail(ctx, {
    accountId: invoice.account_id,
    mode: invoice.mode,
    ...(await customerRecipient(ctx, invoice.account_id, invoice.customer_id)),
    content: {
      kind,
      number: invoice.number!,
      amountCents: centsFromDb(invoice.amount_due_cents),
      dueDate: invoice.due_date!,
      link: invoice.hosted_url!,
      credit: { appliedCents: centsFromDb(invoice.credit_applied_cents), notesCents: centsFromDb(invoice.credit_notes_cents) },
      summary: await readInvoiceSummary(ctx.db, invoice),
    },
    objectId: invoice.id,
    at: now,
  });
}

/** The open invoice emailed to its customer with its page's link, and invoice.sent. */
export async function sendInvoice(ctx: TransactionContext, invoice: InvoiceRow, now: Date): Promise<void> {
  await emailInvoice(ctx, invoice, 'invoice', now);
  await recordEvent(ctx.db, { accountId: invoice.account_id, mode: invoice.mode, type: 'invoice.sent', data: invoiceView(invoice), now });
}

export type InvoiceNotice = 'reminder' | 'overdue';

/** The reminder or the overdue notice, once; whether the invoice is still open (false: nothing more to tell). */
export function noticeInvoice(deps: ServiceDeps, invoiceId: string, notice: InvoiceNotice): Promise<boolean> {
  return inTransaction(deps, async (ctx) => {
    const invoice = await lockInvoice(ctx.db, invoiceId);
    if (invoice.status !== 'open') return false;
    const column = notice === 'reminder' ? 'reminded_at' : 'overdue_at';
    if (invoice[column] !== null) return true;
    const now = await billingNowOf(ctx, invoice.customer_id);
    const noticed = await updateInvoice(ctx.db, invoiceId, { [column]: now });
    if (notice === 'overdue') await recordEvent(ctx.db, { accountId: noticed.account_id, mode: noticed.mode, type: 'invoice.overdue', data: invoiceView(noticed), now });
    await emailInvoice(ctx, noticed, notice === 'reminder' ? 'invoice_reminder' : 'invoice_overdue', now);
    return true;
  });
}

/** POST /v1/invoices/{id}/send: an open invoice collected by sending, emailed again (invoice.sent). */
export async function resendInvoice(ctx: TransactionContext, invoiceId: string): Promise<InvoiceRow> {
  const invoice = await lockInvoice(ctx.db, invoiceId);
  if (invoice.status !== 'open' || invoice.collection_method !== 'send_invoice') {
    const why = invoice.status !== 'open' ? `is ${invoice.status}` : 'is charged to the card on file';
    throw new ApiError('invoice_not_open', `The invoice ${invoice.id} ${why}: only an open invoice collected by sending is sent.`);
  }
  await sendInvoice(ctx, invoice, await billingNowOf(ctx, invoice.customer_id));
  return invoice;
}
