// Settle a saved-card charge: ask the processor about it by its stable reference (with the very
// request that made it, so a charge the API request never got to make is made now, and never
// twice), and record a decided outcome once, with its payment.* event. Called by the charge's
// workflow until it is decided, and by the API request itself when the processor decides at once.
import { centsFromDb } from '../../domain/money';
import { findPayment, processorReference, type PaymentRow, type PaymentStatus } from '../../db/payments';
import { findChargeToSettle, type ChargeToSettle } from '../../db/saved-cards';
import type { CardProcessor, ProcessorOutcome, SavedCardCharge } from '../../processor/port';
import { keepable, logPaymentOutcome, recordPaymentOutcome, type DecidedOutcome } from '../checkouts/settle-attempt';
import type { AccountStanding } from '../../domain/account-rules';
import type { ProcessorServiceDeps } from '../context';
import { nowOnClock } from '../test-clocks/billing-now';

export type ChargeResult = 'succeeded' | 'failed' | 'pending';

type ChargedCard = ChargeToSettle['card'];

/** The processor's request for a charge's payment: the same on every call. */
export function chargeRequest(payment: PaymentRow, card: ChargedCard, merchantName: string): SavedCardCharge {
  return {
    reference: processorReference(payment.id, payment.attempts),
    // A card without a token is refused before its charge is written (card_not_reusable).
    token: card.processor_token!,
    amountCents: centsFromDb(payment.amount_cents),
    merchantName,
  };
}

/**
 * What the processor said of the charge, as its payment records it; null while the bank has not
 * answered. An approval the merchant may not keep now (suspended) is released first.
 */
export async function decidedCharge(merchant: AccountStanding, payment: PaymentRow, card: ChargedCard, processor: CardProcessor, outcome: ProcessorOutcome): Promise<DecidedOutcome | null> {
  const reference = processorReference(payment.id, payment.attempts);
  const kept = await keepable(() => Promise.resolve(merchant), payment, processor, reference, outcome, () => processor.voidCharge(reference));
  if (kept.status === 'pending') return null;
  if (kept.status !== 'canceled') return kept;
  const reported = { scheme: card.scheme, last4: card.last4, expiryMonth: card.expiry_month, expiryYear: card.expiry_year, token: card.processor_token! };
  return { status: 'refused', code: 'canceled', message: 'The charge was canceled at the processor; the card was not charged.', card: reported };
}


function resultOf(status: PaymentStatus): ChargeResult {
  if (status === 'processing') return 'pending';
  return status === 'failed' || status === 'canceled' ? 'failed' : 'succeeded';
}

export async function settleCharge(deps: ProcessorServiceDeps, paymentId: string): Promise<ChargeResult> {
  const { payment, card, merchant, clockTime } = await findChargeToSettle(deps.db, paymentId);
  if (payment.status !== 'processing') return resultOf(payment.status);
  const processor = deps.processors.forMode(payment.mode);
  if (processor === null) return 'pending';
  const outcome = await decidedCharge(merchant, payment, card, processor, await processor.chargeSaved({ ...chargeRequest(payment, card, merchant.name), onTestClock: clockTime !== null }));
  if (outcome === null) return 'pending';
  // The receipt in the language the customer agreed to keep the card in; the time read with the charge.
  const updated = await recordPaymentOutcome(deps, payment, outcome, payment.attempts, { ...merchant, locale: card.consent_locale }, nowOnClock(deps, clockTime));
  if (updated === null) return resultOf((await findPayment(deps.db, paymentId)).status);
  logPaymentOutcome(deps.log, updated, { savedCardId: card.id });
  return resultOf(updated.status);
}
