// An invoice's manual actions (the spec's Invoice transitions), each in the request's transaction
// with its event, from the invoice locked: finalize (a draft is numbered and opened; one that owes
// nothing is paid at once, as Stripe does; one owing something gets its hosted page and its
// collection workflow, and one sent to the customer is emailed), void (a draft or open one), mark uncollectible (an
// open one). The time is the customer's (a test clock's, if it lives on one).
import type { CustomerRow } from '../../db/customers';
import { recordEvent } from '../../db/events';
import { putClockWait, shareTestClock } from '../../db/test-clocks';
import { invoiceCollectionStart } from '../../orchestration/starts';
import { lockInvoice, takeInvoiceNumber, updateInvoice, type InvoiceRow } from '../../db/invoices';
import { ApiError } from '../../domain/errors';
import { actionAllowed, invoiceNumber, invoicePagePath, type InvoiceAction } from '../../domain/invoices';
import { invoiceView } from '../../views/invoice';
import type { TransactionContext } from '../context';
import { billingNowOf } from '../test-clocks/billing-now';
import { recordInvoicePaid } from './collect';
import { sendInvoice } from './notify';

const DAY_MS = 24 * 60 * 60 * 1000;

function refusal(action: InvoiceAction, invoice: InvoiceRow): ApiError {
  if (action === 'finalize') return new ApiError('CONFLICT', `The invoice ${invoice.id} is ${invoice.status}: only a draft is finalised.`);
  const allowed = action === 'void' ? 'a draft or open invoice is voided' : 'an open invoice is marked uncollectible';
  return new ApiError('invoice_not_open', `The invoice ${invoice.id} is ${invoice.status}: only ${allowed}.`);
}

export async function transitionInvoice(ctx: TransactionContext, invoiceId: string, action: InvoiceAction): Promise<InvoiceRow> {
  const invoice = await lockInvoice(ctx.db, invoiceId);
  if (!actionAllowed(action, invoice.status)) throw refusal(action, invoice);
  if (action === 'finalize') return finalizeInvoice(ctx, invoice);
  const now = await billingNowOf(ctx, invoice.customer_id);
  const scope = { accountId: invoice.account_id, mode: invoice.mode, now };
  if (action === 'void') {
    // Closed: nothing more is attempted.
    const voided = await updateInvoice(ctx.db, invoiceId, { status: 'void', voided_at: now, next_attempt_at: null });
    await recordEvent(ctx.db, { ...scope, type: 'invoice.voided', data: invoiceView(voided) });
    return voided;
  }
  const marked = await updateInvoice(ctx.db, invoiceId, { status: 'uncollectible', marked_uncollectible_at: now, next_attempt_at: null });
  await recordEvent(ctx.db, { ...scope, type: 'invoice.marked_uncollectible', data: invoiceView(marked) });
  return marked;
}

/** A draft numbered and opened, in its customer's time (their language and clock read at once). */
async function finalizeInvoice(ctx: TransactionContext, invoice: InvoiceRow): Promise<InvoiceRow> {
  const invoiceId = invoice.id;
  const customer = (await ctx.db('customers as c')
    .leftJoin('test_clocks as t', 't.id', 'c.test_clock_id')
    .where('c.id', invoice.customer_id)
    .first('c.locale', 'c.test_clock_id', 't.frozen_time')) as Pick<CustomerRow, 'locale' | 'test_clock_id'> & { frozen_time: Date | null };
  const now = customer.frozen_time ?? ctx.clock.now();
  const scope = { accountId: invoice.account_id, mode: invoice.mode, now };
  const number = invoiceNumber(await takeInvoiceNumber(ctx.db, invoice.account_id, invoice.mode));
  // Only an invoice sent to the customer has a due date; one charged to the card is due at once.
  const dueDate = invoice.collection_method === 'send_invoice' ? new Date(now.getTime() + (invoice.days_until_due ?? 0) * DAY_MS) : null;
  const hostedUrl = `${ctx.config.publicBaseUrl}${invoicePagePath(customer.locale, invoice.id)}`;
  const opened = await updateInvoice(ctx.db, invoiceId, { status: 'open', number, finalized_at: now, due_date: dueDate, hosted_url: hostedUrl });
  await recordEvent(ctx.db, { ...scope, type: 'invoice.finalized', data: invoiceView(opened) });
  if (Number(opened.amount_due_cents) === 0) return recordInvoicePaid(ctx, opened, now);
  if (opened.collection_method === 'send_invoice') await sendInvoice(ctx, opened, now);
  await startCollection(ctx, opened, customer.test_clock_id);
  return opened;
}

/**
 * The invoice's collection workflow, started once this commits; on a test clock its first wait is
 * written now, at the clock's time, so an advance running waits for its first step too.
 */
async function startCollection(ctx: TransactionContext, invoice: InvoiceRow, clockId: string | null): Promise<void> {
  const start = invoiceCollectionStart(invoice, clockId);
  if (clockId !== null) {
    await shareTestClock(ctx.db, clockId);
    await putClockWait(ctx.db, { workflowId: start.workflowId, clockId, dueAt: invoice.finalized_at! });
  }
  ctx.afterCommit(async () => {
    await ctx.workflows.start(start);
  });
}
