// An invoice's manual actions (the spec's Invoice transitions), each in the request's transaction
// with its event, from the invoice locked: finalize (a draft is numbered and opened; one that owes
// nothing is paid at once, as Stripe does), void (a draft or open one), mark uncollectible (an
// open one). The time is the customer's (a test clock's, if it lives on one).
import { recordEvent } from '../../db/events';
import { lockInvoice, takeInvoiceNumber, updateInvoice, type InvoiceRow } from '../../db/invoices';
import { ApiError } from '../../domain/errors';
import { actionAllowed, invoiceNumber, type InvoiceAction } from '../../domain/invoices';
import { invoiceView } from '../../views/invoice';
import type { TransactionContext } from '../context';
import { billingNowOf } from '../test-clocks/billing-now';

const DAY_MS = 24 * 60 * 60 * 1000;

function refusal(action: InvoiceAction, invoice: InvoiceRow): ApiError {
  if (action === 'finalize') return new ApiError('CONFLICT', `The invoice ${invoice.id} is ${invoice.status}: only a draft is finalised.`);
  const allowed = action === 'void' ? 'a draft or open invoice is voided' : 'an open invoice is marked uncollectible';
  return new ApiError('invoice_not_open', `The invoice ${invoice.id} is ${invoice.status}: only ${allowed}.`);
}

export async function transitionInvoice(ctx: TransactionContext, invoiceId: string, action: InvoiceAction): Promise<InvoiceRow> {
  const invoice = await lockInvoice(ctx.db, invoiceId);
  if (!actionAllowed(action, invoice.status)) throw refusal(action, invoice);
  const now = await billingNowOf(ctx, invoice.customer_id);
  const scope = { accountId: invoice.account_id, mode: invoice.mode, now };
  if (action === 'void') {
    const voided = await updateInvoice(ctx.db, invoiceId, { status: 'void', voided_at: now });
    await recordEvent(ctx.db, { ...scope, type: 'invoice.voided', data: invoiceView(voided) });
    return voided;
  }
  if (action === 'mark_uncollectible') {
    const marked = await updateInvoice(ctx.db, invoiceId, { status: 'uncollectible', marked_uncollectible_at: now });
    await recordEvent(ctx.db, { ...scope, type: 'invoice.marked_uncollectible', data: invoiceView(marked) });
    return marked;
  }
  const number = invoiceNumber(await takeInvoiceNumber(ctx.db, invoice.account_id, invoice.mode));
  const dueDate = invoice.days_until_due === null ? null : new Date(now.getTime() + invoice.days_until_due * DAY_MS);
  const opened = await updateInvoice(ctx.db, invoiceId, { status: 'open', number, finalized_at: now, due_date: dueDate });
  await recordEvent(ctx.db, { ...scope, type: 'invoice.finalized', data: invoiceView(opened) });
  if (Number(opened.amount_due_cents) > 0) return opened;
  const paid = await updateInvoice(ctx.db, invoiceId, { status: 'paid', paid_at: now });
  await recordEvent(ctx.db, { ...scope, type: 'invoice.paid', data: invoiceView(paid) });
  return paid;
}
