// Close a checkout whose 30 minutes are up. An attempt still with the processor is closed there
// first; if the card was authorised after all (the customer never came back from the processor's
// page), the payment stands and the checkout completes. Otherwise the checkout expires, its
// payment is canceled, and checkout.expired is recorded.
import { findAccount } from '../../db/accounts';
import { findCheckout, type CheckoutRow } from '../../db/checkouts';
import { recordEvent } from '../../db/events';
import { findPayment, processorReference } from '../../db/payments';
import { checkoutView } from '../../views/checkout';
import type { ProcessorServiceDeps } from '../context';
import { inTransaction } from '../run';
import { applyAttemptOutcome, keepable } from './settle-attempt';

export async function expireCheckout(deps: ProcessorServiceDeps, checkoutId: string): Promise<'completed' | 'expired'> {
  const checkout = await findCheckout(deps.db, checkoutId);
  if (!checkout) throw new Error(`checkout ${checkoutId} not found`);
  const payment = await findPayment(deps.db, checkout.payment_id);
  const processor = deps.processors.forMode(payment.mode);
  if (payment.status === 'processing' && processor !== null) {
    const reference = processorReference(payment.id, payment.attempts);
    const outcome = await keepable(() => findAccount(deps.db, payment.account_id), payment, processor, reference, await processor.cancel(reference));
    if ((await applyAttemptOutcome(deps, checkoutId, payment.attempts, outcome)) === 'succeeded') return 'completed';
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
