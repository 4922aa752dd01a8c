// The customer presses Pay on the hosted invoice page: a checkout of the amount due (no
// Idempotency-Key: each press is a new checkout, one left unpaid expires after 30 minutes) whose
// payment carries `invoiceId`, so its success pays the invoice (services/checkouts/settle-attempt.ts).
// A subscription's invoice offers to keep the card for its renewals. Refused while the invoice is
// not open (`invoice_not_open`) or a charge of it is with the processor (`invoice_payment_pending`).
import { accountRefusal } from '../../domain/account-rules';
import { ApiError } from '../../domain/errors';
import { amountDueSettlement } from '../../domain/invoices';
import type { Locale } from '../../domain/locale';
import { centsFromDb } from '../../domain/money';
import { findAccount, type AccountRecord } from '../../db/accounts';
import type { CustomerRow } from '../../db/customers';
import type { InvoiceRow } from '../../db/invoices';
import { createCheckout, type CreatedCheckout } from '../checkouts/create';
import type { ServiceDeps } from '../context';
import { runEffects, serviceContext, type Effect } from '../run';

/** Why the invoice cannot be paid now, or null. */
export async function invoicePaymentRefusal(db: ServiceDeps['db'], invoice: InvoiceRow): Promise<ApiError | null> {
  if (invoice.status !== 'open') return new ApiError('invoice_not_open', `The invoice ${invoice.id} is ${invoice.status}: only an open invoice is paid.`);
  const pending = await db('payments').where({ invoice_id: invoice.id, status: 'processing' }).first('id');
  if (pending !== undefined) return new ApiError('invoice_payment_pending', `A charge of the invoice ${invoice.id} is with the processor: wait for its outcome.`);
  return null;
}

export async function openInvoiceCheckout(deps: ServiceDeps, invoice: InvoiceRow, locale: Locale): Promise<CreatedCheckout> {
  const refusal = await invoicePaymentRefusal(deps.db, invoice);
  if (refusal !== null) throw refusal;
  // Below a card payment's minimum: paid by carry-over when charged (collect.ts), never by a checkout.
  if (amountDueSettlement(centsFromDb(invoice.amount_due_cents)) !== 'charge') throw new ApiError('amount', `The invoice ${invoice.id} owes less than a card payment's minimum of 1000 cents: it goes onto the customer's next invoice.`);
  const account = (await findAccount(deps.db, invoice.account_id)) as AccountRecord;
  const standing = accountRefusal(account, invoice.mode);
  if (standing !== null) throw standing;
  const customer = (await deps.db('customers').where({ id: invoice.customer_id }).first()) as CustomerRow;
  const effects: Effect[] = [];
  const created = await createCheckout(
    serviceContext(deps, deps.db, effects),
    { account, mode: invoice.mode },
    {
      amountCents: centsFromDb(invoice.amount_due_cents),
      description: `Invoice ${invoice.number}`,
      locale,
      reference: invoice.number!,
      ...(customer.name === null ? {} : { customer: { name: customer.name, email: customer.email } }),
      saveCard: invoice.subscription_id !== null && (invoice.mode === 'test' || account.savedCards),
    },
    null,
    { invoiceId: invoice.id },
  );
  await runEffects(effects, deps.log);
  return created;
}
