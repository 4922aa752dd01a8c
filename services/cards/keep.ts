// Keep the card of a payment that succeeded with the customer's consent (`cardSave` requested).
// The processor's reusable token first (one per approved session: a retried keeping gets the same
// one), then one transaction: the Saved card (one per payment), the payment's `cardSave` `saved`,
// the card as the default of its customer (cardCustomer), card.saved and the customer's card_saved
// email; or, when the processor will not keep it, `cardSave` `failed` and card.save_failed. Called
// once the payment's success has committed (services/checkouts/settle-attempt.ts), and again by any
// later settling of it, so a keeping the process stopped before is completed.
import type { Knex } from 'knex';
import { newId } from '../../crypto/ids';
import { isPaid } from '../../domain/checkout-rules';
import { normaliseSriLankanMobile } from '../../domain/phone';
import { findAccount } from '../../db/accounts';
import { findCheckout } from '../../db/checkouts';
import { customerForKeptCard, findCustomer, type CustomerRow } from '../../db/customers';
import { findInvoice } from '../../db/invoices';
import { recordEvent } from '../../db/events';
import { findPayment, processorReference } from '../../db/payments';
import { insertSavedCard, lockPaymentWithConsent, makeDefaultCard, type PaymentWithConsent } from '../../db/saved-cards';
import type { SaveOutcome } from '../../processor/port';
import { paymentView } from '../../views/payment';
import { savedCardView } from '../../views/saved-card';
import type { ProcessorServiceDeps } from '../context';
import { keepEmail } from '../emails/keep';
import { inTransaction } from '../run';
import { paymentNow } from '../test-clocks/billing-now';
import { noteCardOnFile } from '../subscriptions/card-on-file';

/**
 * Whose card it is. An invoice's: the invoice's customer. Otherwise the customer the merchant
 * named (a secret key's checkout with `customer`), or a new customer made from the payer's
 * details; what a payer types (on a payment link, a publishable key's checkout, the page's form)
 * never reaches a customer that exists, whose default card (and renewals) it would take over.
 * None then: the card is kept for the email the payer gave, as nobody's default.
 */
async function cardCustomer(trx: Knex.Transaction, payment: PaymentWithConsent, now: Date): Promise<CustomerRow | undefined> {
  if (payment.invoice_id !== null) return findCustomer(trx, (await findInvoice(trx, payment.invoice_id)).customer_id);
  const checkout = (await findCheckout(trx, payment.checkout_id!))!;
  const payer = {
    // Pay asks for the customer's details when the checkout came without them.
    email: payment.customer_email!,
    name: payment.customer_name,
    // A customer's phone is a mobile number; a payment's may be any Sri Lankan number.
    phone: payment.customer_phone === null ? null : normaliseSriLankanMobile(payment.customer_phone),
    locale: payment.card_consent_locale,
  };
  return customerForKeptCard(trx, { accountId: payment.account_id, mode: payment.mode }, payer, now, checkout.customer_named);
}

export async function keepCard(deps: ProcessorServiceDeps, paymentId: string): Promise<void> {
  const payment = await findPayment(deps.db, paymentId);
  if (!isPaid(payment.status) || payment.card_save !== 'requested') return;
  const processor = await deps.processors.forAccount(payment.account_id, payment.mode);
  const saved: SaveOutcome =
    processor === null
      ? { status: 'refused', message: 'No card processor keeps cards in this mode.' }
      : await processor.saveCard(processorReference(payment.id, payment.settled_attempt));
  const cardId = await inTransaction(deps, async (ctx) => {
    const { db: trx } = ctx;
    const locked = await lockPaymentWithConsent(trx, paymentId);
    if (locked.card_save !== 'requested') return undefined;
    const now = await paymentNow(ctx, locked);
    const scope = { accountId: locked.account_id, mode: locked.mode, now };
    if (saved.status === 'refused') {
      const [failed] = await trx('payments').where({ id: paymentId }).update({ card_save: 'failed' }).returning('*');
      await recordEvent(trx, { ...scope, type: 'card.save_failed', data: paymentView(failed) });
      return null;
    }
    const customer = await cardCustomer(trx, locked, now);
    const card = await insertSavedCard(trx, {
      id: newId('savedCard', now.getTime()),
      account_id: locked.account_id,
      mode: locked.mode,
      customer_email: customer?.email ?? locked.customer_email!,
      scheme: saved.card.scheme,
      last4: saved.card.last4,
      expiry_month: saved.card.expiryMonth,
      expiry_year: saved.card.expiryYear,
      processor_token: saved.card.token,
      payment_id: locked.id,
      consent_at: locked.card_consent_at,
      consent_locale: locked.card_consent_locale,
      consent_wording: locked.card_consent_wording,
      created_at: now,
    });
    await trx('payments').where({ id: paymentId }).update({ card_save: 'saved' });
    if (customer !== undefined) {
      await makeDefaultCard(trx, card, customer.id, now);
      await noteCardOnFile(ctx, customer.id, now);
    }
    await recordEvent(trx, { ...scope, type: 'card.saved', data: savedCardView(card) });
    const merchant = (await findAccount(trx, locked.account_id))!;
    await keepEmail(ctx, {
      accountId: card.account_id,
      mode: card.mode,
      to: card.customer_email,
      locale: card.consent_locale,
      parties: { merchant: merchant.name, customerName: locked.customer_name },
      content: { kind: 'card_saved', card: { scheme: card.scheme, last4: card.last4 } },
      objectId: card.id,
      at: now,
    });
    return card.id;
  });
  if (cardId !== undefined) deps.log.info({ paymentId, cardId, accountId: payment.account_id, mode: payment.mode }, cardId === null ? 'card not kept' : 'card kept');
}
