// The checkout lifetime's activities: apply a payment attempt's outcome, and close the checkout
// when its 30 minutes are up. Each is one transaction of conditional updates (from the expected
// status), so a retried activity changes nothing twice; events are recorded in that transaction.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { DEFAULT_PLAN } from '../config/plans';
import type { Clock } from '../domain/clock';
import { paymentFee } from '../domain/fees';
import { findCheckout, loadCheckoutView, type CheckoutRow } from '../db/checkouts';
import { recordEvent } from '../db/events';
import { findPayment, paymentView, processorReference, type PaymentRow } from '../db/payments';
import { centsFromDb } from '../domain/money';
import type { Processors } from '../processor';
import type { CardProcessor, ProcessorOutcome, ReportedCard } from '../processor/port';

export type AttemptResult = 'succeeded' | 'failed' | 'pending';

export interface CheckoutActivityDeps {
  db: Knex;
  clock: Clock;
  config: Config;
  log: Logger;
  processors: Processors;
}

/** An approval the service refused to keep: recorded like a decline, with the service's reason. */
type Refusal = { status: 'refused'; code: 'merchant_unavailable'; message: string; card: ReportedCard };

const SUSPENDED_MESSAGE = 'The merchant cannot take payments right now; the card was not charged.';

async function applyOutcome(deps: CheckoutActivityDeps, checkoutId: string, attempt: number, outcome: ProcessorOutcome | Refusal): Promise<AttemptResult> {
  if (outcome.status !== 'approved' && outcome.status !== 'declined' && outcome.status !== 'refused') return 'pending';
  let updated: PaymentRow | undefined;
  const result = await deps.db.transaction(async (trx): Promise<AttemptResult> => {
    const checkout = await findCheckout(trx, checkoutId, true);
    if (!checkout) throw new Error(`checkout ${checkoutId} not found`);
    const payment = await findPayment(trx, checkout.payment_id, true);
    if (payment.settled_attempt >= attempt || payment.attempts !== attempt || payment.status !== 'processing') {
      return payment.status === 'succeeded' ? 'succeeded' : payment.status === 'failed' ? 'failed' : 'pending';
    }
    const now = deps.clock.now();
    if (outcome.status === 'approved') {
      const account = (await trx('accounts').where({ id: payment.account_id }).first('plan')) as { plan: string };
      const plan = deps.config.plans[account.plan] ?? deps.config.plans[DEFAULT_PLAN];
      if (!plan) throw new Error(`no fee schedule for plan ${account.plan}`);
      const { feeCents, netCents } = paymentFee(centsFromDb(payment.amount_cents), plan);
      [updated] = (await trx('payments')
        .where({ id: payment.id, status: 'processing' })
        .update({
          status: 'succeeded',
          card_scheme: outcome.card.scheme,
          card_last4: outcome.card.last4,
          card_expiry_month: outcome.card.expiryMonth,
          card_expiry_year: outcome.card.expiryYear,
          card_token: outcome.card.token,
          fee_cents: feeCents,
          net_cents: netCents,
          failure_message: null,
          failure_code: null,
          succeeded_at: now,
          settled_attempt: attempt,
        })
        .returning('*')) as PaymentRow[];
      await trx('checkouts').where({ id: checkout.id, status: 'open' }).update({ status: 'completed', completed_at: now });
      await recordEvent(trx, { accountId: payment.account_id, mode: payment.mode, type: 'payment.succeeded', data: paymentView(updated as PaymentRow), now });
      return 'succeeded';
    }
    [updated] = (await trx('payments')
      .where({ id: payment.id, status: 'processing' })
      .update({
        status: 'failed',
        card_scheme: outcome.card?.scheme ?? null,
        card_last4: outcome.card?.last4 ?? null,
        failure_message: outcome.message,
        failure_code: outcome.code,
        settled_attempt: attempt,
      })
      .returning('*')) as PaymentRow[];
    await recordEvent(trx, { accountId: payment.account_id, mode: payment.mode, type: 'payment.failed', data: paymentView(updated as PaymentRow), now });
    return 'failed';
  });
  // Once committed, and only by the attempt that settled it (a retried activity logs nothing twice).
  if (updated) {
    const { id, account_id: accountId, mode, amount_cents: amount, status, failure_code: failureCode } = updated;
    deps.log.info({ paymentId: id, checkoutId, accountId, mode, amountCents: centsFromDb(amount), attempt, failureCode }, `payment ${status}`);
  }
  return result;
}

export function createCheckoutActivities(deps: CheckoutActivityDeps) {
  const processorOf = (payment: PaymentRow) => deps.processors.forMode(payment.mode);
  /**
   * A suspended merchant takes no payment: an approval that arrives after the suspension is
   * released at the processor first (so no card is charged), then recorded as a failure.
   */
  const keepable = async (payment: PaymentRow, processor: CardProcessor, reference: string, outcome: ProcessorOutcome): Promise<ProcessorOutcome | Refusal> => {
    if (outcome.status !== 'approved') return outcome;
    const account = (await deps.db('accounts').where({ id: payment.account_id }).first('status')) as { status: string };
    if (account.status !== 'suspended') return outcome;
    await processor.voidApproval(reference);
    return { status: 'refused', code: 'merchant_unavailable', message: SUSPENDED_MESSAGE, card: outcome.card };
  };
  return {
    /** Reads the attempt's outcome from the processor (by its stable reference) and applies it. */
    async settleAttempt(checkoutId: string, attempt: number): Promise<AttemptResult> {
      const checkout = await findCheckout(deps.db, checkoutId);
      if (!checkout) throw new Error(`checkout ${checkoutId} not found`);
      const payment = await findPayment(deps.db, checkout.payment_id);
      const processor = processorOf(payment);
      if (processor === null) return 'pending';
      const reference = processorReference(payment.id, attempt);
      return applyOutcome(deps, checkoutId, attempt, await keepable(payment, processor, reference, await processor.outcome(reference)));
    },

    /**
     * The 30 minutes are up. An attempt still with the processor is closed there first; if the
     * card was authorised after all (the customer never came back from the processor's page),
     * the payment stands and the checkout completes. Otherwise the checkout expires and its
     * payment is canceled.
     */
    async closeCheckout(checkoutId: string): Promise<'completed' | 'expired'> {
      const checkout = await findCheckout(deps.db, checkoutId);
      if (!checkout) throw new Error(`checkout ${checkoutId} not found`);
      const payment = await findPayment(deps.db, checkout.payment_id);
      const processor = processorOf(payment);
      if (payment.status === 'processing' && processor !== null) {
        const reference = processorReference(payment.id, payment.attempts);
        const outcome = await keepable(payment, processor, reference, await processor.cancel(reference));
        if ((await applyOutcome(deps, checkoutId, payment.attempts, outcome)) === 'succeeded') return 'completed';
      }
      return deps.db.transaction(async (trx) => {
        const now = deps.clock.now();
        const locked = await findCheckout(trx, checkoutId, true);
        if (locked?.status === 'completed') return 'completed';
        if (locked?.status !== 'open') return 'expired';
        const [expired] = await trx('checkouts').where({ id: checkoutId, status: 'open' }).update({ status: 'expired', expired_at: now }).returning('*');
        await trx('payments')
          .where({ id: locked.payment_id })
          .whereIn('status', ['requires_payment_method', 'processing', 'failed'])
          .update({ status: 'canceled' });
        const view = await loadCheckoutView(trx, expired as CheckoutRow);
        await recordEvent(trx, { accountId: locked.account_id, mode: locked.mode, type: 'checkout.expired', data: view, now });
        return 'expired';
      });
    },
  };
}

export type CheckoutActivities = ReturnType<typeof createCheckoutActivities>;
