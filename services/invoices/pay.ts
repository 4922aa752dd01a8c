// Pay an invoice now (POST /v1/invoices/{id}/pay): charge the card on file (the subscription's,
// else the customer's default) as the invoice's next attempt, the way its collection does
// (services/invoices/collect.ts chargeInvoice: one payment per attempt, so a retried request
// finishes the attempt it began instead of charging again). The invoice comes back paid, or open
// with the attempt's failure (`attemptCount`, `lastFailure`, invoice.payment_failed); a charge the
// processor has not decided is seen to its outcome by a workflow of its own. One charge at a time:
// the attempt's payment is written under the invoice's lock, where a charge of it already with the
// processor (another pay, its collection, a payment on its page) refuses this one (409
// invoice_payment_pending), so two pays at once make one charge. Refused for an invoice not open
// (invoice_not_open) and with no card on file (no_card_on_file). An attempt by hand moves no
// dunning ladder it is not on: one sent to the customer keeps its due date and reminders.
import { customerClockId } from '../../db/customers';
import { invoiceToCollect, lockInvoicePayments, writeInvoiceCharges } from '../../db/invoice-charges';
import { findInvoice, type InvoiceRow } from '../../db/invoices';
import { ApiError } from '../../domain/errors';
import { amountDueSettlement } from '../../domain/invoices';
import { centsFromDb } from '../../domain/money';
import { invoicePaymentStart } from '../../orchestration/starts';
import type { ProcessorServiceDeps } from '../context';
import { inTransaction } from '../run';
import { attemptPayment, chargeInvoice } from './collect';
import { paymentRefusal } from './open-checkout';

/** The invoice's next attempt written, with the invoice locked: its number. */
function writeAttempt(deps: ProcessorServiceDeps, invoiceId: string): Promise<{ invoice: InvoiceRow; attempt: number }> {
  return inTransaction(deps, async (ctx) => {
    const { invoice, busy } = await lockInvoicePayments(ctx.db, invoiceId);
    const refusal = paymentRefusal(invoice, busy);
    if (refusal !== null) throw refusal;
    const attempt = invoice.attempt_count + 1;
    // Below a card payment's minimum: no charge is written; the attempt carries it over (collect.ts).
    if (amountDueSettlement(centsFromDb(invoice.amount_due_cents)) !== 'charge') return { invoice, attempt };
    const read = await invoiceToCollect(ctx.db, invoiceId, null);
    if (read.card === null) throw new ApiError('no_card_on_file', `The invoice ${invoice.id} has no card on file to charge (the subscription's, or the customer's default): the customer can pay it on its page, ${invoice.hosted_url}.`);
    // Written once: a payment of this attempt there already (decided, not yet applied) is the one applied.
    await writeInvoiceCharges(ctx.db, [{ payment: attemptPayment(ctx, read, attempt), card: read.card }], ctx.clock.now());
    // The attempt has a workflow of its own from the commit on, whatever becomes of this request
    // (the processor unreachable, the process stopped before the outcome was applied): it sees the
    // attempt to its end, and finds it ended when this request got there first.
    const start = invoicePaymentStart(invoice, attempt, await customerClockId(ctx.db, invoice.customer_id));
    ctx.afterCommit(async () => {
      await ctx.workflows.start(start);
    });
    return { invoice, attempt };
  });
}

export async function payInvoice(deps: ProcessorServiceDeps, invoiceId: string): Promise<InvoiceRow> {
  const { invoice, attempt } = await writeAttempt(deps, invoiceId);
  await chargeInvoice(deps, invoice.id, attempt);
  return findInvoice(deps.db, invoice.id);
}
