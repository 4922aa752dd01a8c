// The customer presses Pay on the hosted invoice page: a checkout of the amount due (no
// Idempotency-Key; one left unpaid expires after 30 minutes) whose payment carries `invoiceId`, so
// its success pays the invoice (services/checkouts/settle-attempt.ts). One invoice, one payment
// (docs/reference/invoices.md): under the invoice's lock, a checkout of it still open for the amount due is
// handed out again rather than a second one made, and Pay on it checks the invoice again
// (services/checkouts/pay.ts). A subscription's invoice offers to keep the card for its renewals.
// Refused while the invoice is not open (`invoice_not_open`) or a charge of it is with the
// processor (`invoice_payment_pending`).
import { accountRefusal } from '../../domain/account-rules';
import { checkoutUrl } from '../../domain/checkout-rules';
import { ApiError } from '../../domain/errors';
import { amountDueSettlement } from '../../domain/invoices';
import type { Locale } from '../../domain/locale';
import { centsFromDb } from '../../domain/money';
import { findAccount, type AccountRecord } from '../../db/accounts';
import { findCustomer } from '../../db/customers';
import { lockInvoicePayments } from '../../db/invoice-charges';
import type { InvoiceRow } from '../../db/invoices';
import { sql } from '../../db/sql';
import { createCheckout } from '../checkouts/create';
import type { ServiceDeps } from '../context';
import { inTransaction } from '../run';

/** Why the invoice cannot be paid now, as read with `busy` (another payment of it is with the processor), or null. */
export function paymentRefusal(invoice: Pick<InvoiceRow, 'id' | 'status'>, busy: boolean): ApiError | null {
  if (invoice.status !== 'open') return new ApiError('invoice_not_open', `The invoice ${invoice.id} is ${invoice.status}: only an open invoice is paid.`);
  if (busy) return new ApiError('invoice_payment_pending', `A charge of the invoice ${invoice.id} is with the processor: wait for its outcome.`);
  return null;
}

/** Why the invoice as read (unlocked: what its page shows) cannot be paid now, or null. */
export async function invoicePaymentRefusal(db: ServiceDeps['db'], invoice: InvoiceRow): Promise<ApiError | null> {
  const pending = await db('payments').where({ invoice_id: invoice.id, status: 'processing' }).first('id');
  return paymentRefusal(invoice, pending !== undefined);
}

/** The checkout made on the invoice's page that is still open and unexpired for `amountCents`, or none. */
async function openPageCheckout(db: ServiceDeps['db'], invoiceId: string, amountCents: string | number, now: Date): Promise<string | undefined> {
  const [row] = await sql<{ id: string }>(
    db,
    `select c.id from payments p join checkouts c on c.payment_id = p.id
      where p.invoice_id = $1 and p.invoice_attempt is null and p.amount_cents = $2 and c.status = 'open' and c.expires_at > $3
      order by c.expires_at desc limit 1`,
    [invoiceId, amountCents, now],
  );
  return row?.id;
}

/** The checkout the customer is sent to: the invoice's open one, or a new one. */
export async function openInvoiceCheckout(deps: ServiceDeps, invoiceId: string, locale: Locale): Promise<{ checkout: { url: string } }> {
  return inTransaction(deps, async (ctx) => {
    const { invoice, busy } = await lockInvoicePayments(ctx.db, invoiceId);
    const refusal = paymentRefusal(invoice, busy);
    if (refusal !== null) throw refusal;
    // Below a card payment's minimum: paid by carry-over when charged (collect.ts), never by a checkout.
    if (amountDueSettlement(centsFromDb(invoice.amount_due_cents)) !== 'charge') throw new ApiError('amount', `The invoice ${invoice.id} owes less than a card payment's minimum of 1000 cents: it goes onto the customer's next invoice.`);
    const open = await openPageCheckout(ctx.db, invoice.id, invoice.amount_due_cents, ctx.clock.now());
    if (open !== undefined) return { checkout: { url: checkoutUrl(ctx.config.publicBaseUrl, open, locale) } };
    const account = (await findAccount(ctx.db, invoice.account_id)) as AccountRecord;
    const standing = accountRefusal(account, invoice.mode);
    if (standing !== null) throw standing;
    const customer = await findCustomer(ctx.db, invoice.customer_id);
    return createCheckout(
      ctx,
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
  });
}
