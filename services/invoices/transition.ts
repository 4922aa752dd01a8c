// An invoice's manual actions (the spec's Invoice transitions), each in the request's transaction
// with its event, from the invoice locked: finalize (a draft is numbered and opened, the customer's
// credit balance used for it, or its total added to the balance when below zero; one that owes
// nothing is paid at once, as Stripe does; one owing 1 to 999 cents, below a card payment's
// minimum, is paid by carrying that onto the customer's next invoice; one owing more gets its
// hosted page and its collection workflow, and one sent to the customer is emailed), void (a draft
// or open one; the credit balance it used goes back to the customer, as Stripe does), mark
// uncollectible (an open one; the credit it used stays used, as Stripe keeps it). Void and mark
// uncollectible wait for a charge of the invoice with the processor (409 invoice_payment_pending),
// decided under the invoice's lock, which a charge's write and a payment on its page take too:
// money is never taken for an invoice closed meanwhile (docs/reference/invoices.md). The time is
// the customer's (a test clock's, if it lives on one).
import { customerTime, type CustomerTime } from '../../db/customers';
import { eventRow, recordEvent, type NewEvent } from '../../db/events';
import { clockWaitStatement } from '../../db/test-clocks';
import { invoiceCollectionStart } from '../../orchestration/starts';
import { lockInvoicePayments } from '../../db/invoice-charges';
import { NUMBER_MARK, numberedInvoiceStatement, updateInvoice, writeNumberedInvoice, type InvoiceRow } from '../../db/invoices';
import { ApiError } from '../../domain/errors';
import { actionAllowed, amountDueSettlement, invoicePagePath, type InvoiceAction } from '../../domain/invoices';
import { centsFromDb } from '../../domain/money';
import { invoiceView } from '../../views/invoice';
import type { TransactionContext } from '../context';
import { runStatements, type Statement } from '../../db/sql';
import { writeLast } from '../run';
import { billingNowOf } from '../test-clocks/billing-now';
import { returnAppliedCredit, settleBalance } from '../balance/apply';
import { carryOver } from './carry-over';
import { recordInvoicePaid } from './collect';
import { sendInvoice } from './notify';

const DAY_MS = 24 * 60 * 60 * 1000;

function refusal(action: InvoiceAction, invoice: InvoiceRow): ApiError {
  if (action === 'finalize') return new ApiError('CONFLICT', `The invoice ${invoice.id} is ${invoice.status}: only a draft is finalised.`);
  const allowed = action === 'void' ? 'a draft or open invoice is voided' : 'an open invoice is marked uncollectible';
  return new ApiError('invoice_not_open', `The invoice ${invoice.id} is ${invoice.status}: only ${allowed}.`);
}

/**
 * `subscriptionEnded`: a subscription's end voids its invoices whatever is in flight (a charge
 * with the processor then is still seen to its outcome by the invoice's collection, and refunded
 * if it succeeds: services/invoices/refund-late-payment.ts), and leaves one paid or closed since
 * it was listed as it is.
 */
export async function transitionInvoice(ctx: TransactionContext, invoiceId: string, action: InvoiceAction, options: { subscriptionEnded?: boolean } = {}): Promise<InvoiceRow> {
  const { invoice, busy } = await lockInvoicePayments(ctx.db, invoiceId);
  if (!actionAllowed(action, invoice.status)) {
    if (options.subscriptionEnded === true) return invoice;
    throw refusal(action, invoice);
  }
  if (action === 'finalize') return finalizeInvoice(ctx, invoice, {});
  if (busy && options.subscriptionEnded !== true) {
    throw new ApiError('invoice_payment_pending', `A charge of the invoice ${invoice.id} is with the processor: it is ${action === 'void' ? 'voided' : 'marked uncollectible'} once the charge is declined (a charge that succeeds pays it).`);
  }
  const now = await billingNowOf(ctx, invoice.customer_id);
  const scope = { accountId: invoice.account_id, mode: invoice.mode, now };
  if (action === 'void') {
    // Closed: nothing more is attempted.
    const voided = await updateInvoice(ctx.db, invoiceId, { status: 'void', voided_at: now, next_attempt_at: null });
    await recordEvent(ctx.db, { ...scope, type: 'invoice.voided', data: invoiceView(voided) });
    await returnAppliedCredit(ctx, voided, now);
    return voided;
  }
  const marked = await updateInvoice(ctx.db, invoiceId, { status: 'uncollectible', marked_uncollectible_at: now, next_attempt_at: null });
  await recordEvent(ctx.db, { ...scope, type: 'invoice.marked_uncollectible', data: invoiceView(marked) });
  return marked;
}

/**
 * A draft numbered and opened, in its customer's time (their language and clock read at once): one
 * written before, or a `fresh` one written now with its invoice.created. `after` are recorded
 * behind invoice.finalized. The number is taken last, in the statement that writes the invoice and
 * its events: its counter stays locked to the transaction's end. When the caller writes nothing
 * after (`last`) and the runner allows it, that statement goes with the COMMIT (an invoice charged to
 * the card; one sent or paid at once has more to write), and the invoice answered has no number yet.
 * `customer`: the customer's time, when the caller has read it. `before`: the caller's writes
 * that go just before the invoice's, with it at the COMMIT when it goes there. `hold`: numbered
 * and opened only, neither collected nor settled (a pause of collection closes it next).
 */
export async function finalizeInvoice(
  ctx: TransactionContext,
  draft: InvoiceRow,
  options: { fresh?: boolean; after?: readonly NewEvent[]; last?: boolean; customer?: CustomerTime; before?: readonly Statement[]; hold?: boolean },
): Promise<InvoiceRow> {
  const { fresh = false, after = [], before = [] } = options;
  const customer = options.customer ?? (await customerTime(ctx.db, draft.customer_id));
  const now = customer.frozen_time ?? ctx.clock.now();
  const changes = {
    status: 'open' as const,
    finalized_at: now,
    // Only an invoice sent to the customer has a due date; one charged to the card is due at once.
    due_date: draft.collection_method === 'send_invoice' ? new Date(now.getTime() + (draft.days_until_due ?? 0) * DAY_MS) : null,
    hosted_url: `${ctx.config.publicBaseUrl}${invoicePagePath(customer.locale, draft.id)}`,
  };
  // The customer's credit balance used (or, for a total below zero, added to): not by one held, which a pause closes next.
  const credited = options.hold === true ? {} : await settleBalance(ctx, draft, customer.credit_balance_cents, now);
  const opened = { ...draft, ...changes, ...credited };
  const settlement = options.hold === true ? 'held' : amountDueSettlement(centsFromDb(opened.amount_due_cents));
  if (settlement === 'charge') await startCollection(ctx, opened, customer.test_clock_id);
  const scope = { accountId: draft.account_id, mode: draft.mode };
  const events = [
    ...(fresh ? [{ ...scope, type: 'invoice.created' as const, data: invoiceView(draft), now: draft.created_at }] : []),
    { ...scope, type: 'invoice.finalized' as const, data: invoiceView({ ...opened, number: NUMBER_MARK }), now },
    ...after,
  ].map(eventRow);
  const statement = numberedInvoiceStatement(fresh ? { insert: opened } : { draft, changes: { ...changes, ...credited } }, events);
  // Charged to the card with nothing after it: its number is taken with the COMMIT, where the
  // transaction's runner allows it, and not known here.
  if (options.last === true && ctx.atCommit !== undefined && settlement === 'charge' && opened.collection_method === 'charge_automatically') {
    for (const write of [...before, statement]) ctx.atCommit(write);
    return opened;
  }
  await runStatements(ctx.db, before);
  const numbered = await writeNumberedInvoice(ctx.db, statement);
  if (settlement === 'held') return numbered;
  if (settlement === 'paid') return recordInvoicePaid(ctx, numbered, now);
  if (settlement === 'carry_over') return carryOver(ctx, numbered, now);
  if (numbered.collection_method === 'send_invoice') await sendInvoice(ctx, numbered, now);
  return numbered;
}

/**
 * The invoice's collection workflow, started once this commits; on a test clock its first wait is
 * written now, at the clock's time, so an advance running waits for its first step too.
 */
async function startCollection(ctx: TransactionContext, invoice: InvoiceRow, clockId: string | null): Promise<void> {
  const start = invoiceCollectionStart(invoice, clockId);
  if (clockId !== null) await writeLast(ctx, clockWaitStatement({ workflowId: start.workflowId, clockId, dueAt: invoice.finalized_at! }));
  ctx.afterCommit(async () => {
    await ctx.workflows.start(start);
  });
}
