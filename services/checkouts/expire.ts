// Close a checkout whose 30 minutes are up. An attempt still with the processor is closed there
// first; if the card was authorised after all (the customer never came back from the processor's
// page), the payment stands and the checkout completes. While the processor cannot tell how the
// attempt ended (the gateway's UNKNOWN, or no answer), nothing is closed: `pending`, and the
// workflow asks again later, so a payment the bank may yet approve is never canceled. Otherwise
// the checkout expires, its payment is canceled, and checkout.expired is recorded.
import { centsFromDb } from '../../domain/money';
import { findAccount } from '../../db/accounts';
import { findCheckout, type CheckoutRow } from '../../db/checkouts';
import { recordEvent } from '../../db/events';
import { findPayment, processorReference } from '../../db/payments';
import { checkoutView } from '../../views/checkout';
import type { ProcessorServiceDeps } from '../context';
import { inTransaction } from '../run';
import { applyAttemptOutcome, keepable } from './settle-attempt';

export async function expireCheckout(deps: ProcessorServiceDeps, checkoutId: string): Promise<'completed' | 'expired' | 'pending'> {
  const checkout = await findCheckout(deps.db, checkoutId);
  if (!checkout) throw new Error(`checkout ${checkoutId} not found`);
  const payment = await findPayment(deps.db, checkout.payment_id);
  const processor = await deps.processors.forAccount(payment.account_id, payment.mode);
  if (payment.status === 'processing' && processor !== null) {
    const reference = processorReference(payment.id, payment.attempts);
    const outcome = await keepable(() => findAccount(deps.db, payment.account_id), payment, processor, reference, await processor.cancel(reference, checkout.expires_at, centsFromDb(payment.amount_cents)));
    const result = await applyAttemptOutcome(deps, checkoutId, payment.attempts, outcome);
    if (result === 'succeeded') return 'completed';
    if (result === 'pending' && outcome.status === 'pending') return 'pending';
  }
  return inTransaction(deps, async ({ db: trx, clock }) => {
    const now = clock.now();
    const locked = await findCheckout(trx, checkoutId, true);
    if (locked?.status === 'completed') return 'completed';
    if (locked?.status !== 'open') return 'expired';
    const [expired] = (await trx('checkouts').where({ id: checkoutId, status: 'open' }).update({ status: 'expired', expired_at: now }).returning('*')) as CheckoutRow[];
    await trx('payments')
      .where({ id: locked.payment_id })
      .whereIn('status', ['requires_payment_method', 'processing', 'failed'])
      .update({ status: 'canceled' });
    const view = checkoutView(expired!, await findPayment(trx, locked.payment_id));
    await recordEvent(trx, { accountId: locked.account_id, mode: locked.mode, type: 'checkout.expired', data: view, now });
    return 'expired';
  });
}
