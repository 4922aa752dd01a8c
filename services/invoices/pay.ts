// Pay an invoice now (POST /v1/invoices/{id}/pay): charge the card on file (the subscription's,
// else the customer's default) as the invoice's next attempt, the way its collection does
// (services/invoices/collect.ts chargeInvoice: one payment per attempt, so a retried request
// finishes the attempt it began instead of charging again). The invoice comes back paid, or open
// with the attempt's failure (`attemptCount`, `lastFailure`, invoice.payment_failed); a charge the
// processor has not decided is seen to its outcome by a workflow of its own, and until then the
// invoice refuses another (409 invoice_payment_pending). Refused for an invoice not open
// (invoice_not_open) and with no card on file (no_card_on_file). An attempt by hand moves no
// dunning ladder it is not on: one sent to the customer keeps its due date and reminders.
import { customerClockId } from '../../db/customers';
import { findInvoice, type InvoiceRow } from '../../db/invoices';
import { ApiError } from '../../domain/errors';
import { invoicePaymentStart } from '../../orchestration/starts';
import type { ProcessorServiceDeps } from '../context';
import { chargeInvoice, invoiceCard } from './collect';
import { invoicePaymentRefusal } from './open-checkout';

export async function payInvoice(deps: ProcessorServiceDeps, invoiceId: string): Promise<InvoiceRow> {
  const invoice = await findInvoice(deps.db, invoiceId);
  const refusal = await invoicePaymentRefusal(deps.db, invoice);
  if (refusal !== null) throw refusal;
  if ((await invoiceCard(deps.db, invoice)) === null) throw new ApiError('no_card_on_file', `The invoice ${invoice.id} has no card on file to charge (the subscription's, or the customer's default): the customer can pay it on its page, ${invoice.hosted_url}.`);
  const attempt = invoice.attempt_count + 1;
  const step = await chargeInvoice(deps, invoice.id, attempt);
  if (step.kind === 'pending') await deps.workflows.start(invoicePaymentStart(invoice, attempt, await customerClockId(deps.db, invoice.customer_id)));
  return findInvoice(deps.db, invoice.id);
}
