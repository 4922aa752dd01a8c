// Settle a saved-card charge: ask the processor about it by its stable reference (with the very
// request that made it, so a charge the API request never got to make is made now, and never
// twice), and record a decided outcome once, with its payment.* event. Called by the charge's
// workflow until it is decided, and by the API request itself when the processor decides at once.
import { centsFromDb } from '../../domain/money';
import { findPayment, processorReference, type PaymentRow, type PaymentStatus } from '../../db/payments';
import { findChargesToSettle, type ChargeToSettle } from '../../db/saved-cards';
import { changedRow } from '../../db/events';
import { runEach } from '../../db/sql';
import type { CardProcessor, ProcessorOutcome, SavedCardCharge } from '../../processor/port';
import { keepable, logPaymentOutcome, paymentOutcomeStatement, type DecidedOutcome } from '../checkouts/settle-attempt';
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
  return (await settleCharges(deps, [paymentId]))[0]!;
}

/**
 * settleCharge for many charges at once (an instant's invoice charges, a burst of saved-card
 * charges due together): read in one statement, asked of each account's processor in one call per mode, their
 * outcomes recorded side by side. Their results, in order.
 */
export async function settleCharges(deps: ProcessorServiceDeps, paymentIds: readonly string[]): Promise<ChargeResult[]> {
  const found = await findChargesToSettle(deps.db, paymentIds);
  const results = found.map(({ payment }) => resultOf(payment.status));
  const processing = found.flatMap((charge, i) => (charge.payment.status === 'processing' ? [i] : []));
  // Asked of each account's processor in the mode (the sandbox, or a gateway), side by side.
  const groups = await deps.processors.grouped(processing, (i) => ({ accountId: found[i]!.payment.account_id, mode: found[i]!.payment.mode }));
  const answers = new Map<number, { processor: CardProcessor; answer: ProcessorOutcome }>();
  await Promise.all(
    groups.map(async ({ processor, items }) => {
      const requests = items.map((i) => {
        const { payment, card, merchant, clockTime } = found[i]!;
        return { ...chargeRequest(payment, card, merchant.name), onTestClock: clockTime !== null };
      });
      (await processor.chargeSaved(requests)).forEach((answer, k) => answers.set(items[k]!, { processor, answer }));
    }),
  );
  const decided = (
    await Promise.all(
      [...answers].map(async ([i, { processor, answer }]) => {
        const { payment, card, merchant } = found[i]!;
        const outcome = await decidedCharge(merchant, payment, card, processor, answer);
        return outcome === null ? [] : [{ i, outcome }];
      }),
    )
  ).flat();
  // The receipt in the language the customer agreed to keep the card in; the time read with the
  // charge. Each outcome in a transaction of its own, all in one round trip: each takes the
  // account's running totals (the payments' trigger), which one transaction of many would hold for
  // all of them, while the account's other payments wait.
  const recorded = await runEach(
    deps.db,
    decided.map(({ i, outcome }) => {
      const { payment, card, merchant, clockTime } = found[i]!;
      return paymentOutcomeStatement(deps, payment, outcome, payment.attempts, { ...merchant, locale: card.consent_locale }, nowOnClock(deps, clockTime));
    }),
  );
  for (const [k, { i }] of decided.entries()) {
    const updated = changedRow<PaymentRow>(recorded[k]!);
    // Settled meanwhile by another call (which logged it): as that call left it.
    if (updated === undefined) {
      results[i] = resultOf((await findPayment(deps.db, paymentIds[i]!)).status);
      continue;
    }
    logPaymentOutcome(deps.log, updated, { savedCardId: found[i]!.card.id });
    results[i] = resultOf(updated.status);
  }
  return results;
}
