// Pay on the hosted checkout page: the attempt is claimed in one transaction (the customer's
// details and card-keeping consent kept, the month's room checked under a per-account lock), then
// the customer is handed to the processor's page and the checkout's workflow told of the attempt.
// A checkout of an invoice (made on its page) is paid only while the invoice is open with no other
// charge of it with the processor, checked under the invoice's lock (docs/reference/invoices.md "One
// invoice, one payment"): the card is not charged for an invoice voided or paid meanwhile.
import { accountRefusal } from '../../domain/account-rules';
import { checkoutClosureRefusal } from '../../domain/checkout-rules';
import { ApiError } from '../../domain/errors';
import type { Locale } from '../../domain/locale';
import { centsFromDb } from '../../domain/money';
import { findAccount } from '../../db/accounts';
import { lockInvoicePayments } from '../../db/invoice-charges';
import { findCheckout, type CheckoutRow } from '../../db/checkouts';
import { monthlyRoomLockKey } from '../../db/monthly-usage';
import { findPayment, processorReference } from '../../db/payments';
import { paymentRefusal } from '../invoices/open-checkout';
import { notingLimitRefusal, takeMonthlyRoom } from '../account/note-limit-usage';
import type { ProcessorServiceDeps } from '../context';
import { inTransaction } from '../run';
import { signalAttempt } from './lifetime';

export interface PayInput {
  checkoutId: string;
  /** The customer's details, when the checkout came without them (the page has checked them). */
  customer: { name: string; email: string; phone: string | null } | null;
  /** The card-keeping consent as the customer saw and ticked it; null when not given. */
  cardConsent: { locale: Locale; wording: string } | null;
  /** The language of the processor's page. */
  locale: Locale;
  merchantName: string;
  /** Where the processor sends the customer back after this attempt. */
  returnUrl(attempt: number): string;
}

interface Claimed {
  checkout: CheckoutRow;
  paymentId: string;
  amountCents: number;
  attempt: number;
  /** The customer agreed to keep the card (now or at an earlier press of Pay on this attempt). */
  keepCard: boolean;
}

/** Records the attempt, or refuses it with the reason the page shows. */
function claimAttempt(deps: ProcessorServiceDeps, input: PayInput): Promise<Claimed> {
  return inTransaction(deps, async (ctx) => {
    const { db: trx, clock } = ctx;
    const checkout = await findCheckout(trx, input.checkoutId, true);
    if (!checkout) throw new ApiError('not_open', `No checkout ${input.checkoutId}.`);
    const payment = await findPayment(trx, checkout.payment_id, true);
    const now = clock.now();
    const closed = checkoutClosureRefusal(checkout, payment.status, now);
    if (closed !== null) throw closed;
    if (payment.invoice_id !== null && payment.status !== 'processing') {
      const { invoice, busy } = await lockInvoicePayments(trx, payment.invoice_id, payment.id);
      const refusal = paymentRefusal(invoice, busy);
      if (refusal !== null) throw refusal;
      // A credit note lowered what is due since this checkout was made: the page makes one for the new amount.
      if (centsFromDb(payment.amount_cents) !== centsFromDb(invoice.amount_due_cents)) throw new ApiError('order_invalid', `The invoice ${invoice.id} now owes ${centsFromDb(invoice.amount_due_cents)} cents: open its page again to pay that.`);
    }
    const amountCents = centsFromDb(payment.amount_cents);
    const patch: Record<string, unknown> = {};
    if (input.customer) Object.assign(patch, { customer_name: input.customer.name, customer_email: input.customer.email, customer_phone: input.customer.phone });
    if (checkout.save_card && input.cardConsent) {
      Object.assign(patch, { card_save: 'requested', card_consent_at: now, card_consent_locale: input.cardConsent.locale, card_consent_wording: input.cardConsent.wording });
    }
    let attempt = payment.attempts;
    // Still with the processor (the customer came back to this page): the same session again.
    if (payment.status !== 'processing') {
      // One at a time per account and mode, so two payments cannot both squeeze under the limit.
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [monthlyRoomLockKey(checkout.account_id, checkout.mode)]);
      const account = (await findAccount(trx, checkout.account_id))!;
      const refusal = accountRefusal(account, checkout.mode);
      if (refusal !== null) throw refusal;
      await takeMonthlyRoom(ctx, { account, mode: checkout.mode }, amountCents);
      attempt += 1;
      Object.assign(patch, { status: 'processing', attempts: attempt, failure_message: null, failure_code: null });
    }
    // Pay pressed again while the attempt is with the processor, with nothing new to keep: the
    // same processor session is opened again, which shows where the payment stands.
    if (Object.keys(patch).length > 0) await trx('payments').where({ id: payment.id }).update(patch);
    return { checkout, paymentId: payment.id, amountCents, attempt, keepCard: (patch.card_save ?? payment.card_save) === 'requested' };
  });
}

/** The processor page to send the customer to, once the attempt is recorded. */
export async function payCheckout(deps: ProcessorServiceDeps, input: PayInput, checkout: Pick<CheckoutRow, 'account_id' | 'mode'>): Promise<{ redirectUrl: string }> {
  const processor = await deps.processors.required(checkout.account_id, checkout.mode);
  const claimed = await claimAttempt(deps, input).catch(notingLimitRefusal(deps));
  const session = await processor.openSession({
    reference: processorReference(claimed.paymentId, claimed.attempt),
    amountCents: claimed.amountCents,
    merchantName: input.merchantName,
    locale: input.locale,
    returnUrl: input.returnUrl(claimed.attempt),
    keepCard: claimed.keepCard,
    expiresAt: claimed.checkout.expires_at,
  });
  // The workflow asks the processor about the attempt from now on, whether or not the customer
  // comes back to the return page.
  await signalAttempt(deps.workflows, claimed.checkout, claimed.attempt);
  return session;
}
