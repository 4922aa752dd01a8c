// A checkout's 30 minutes. It starts with the checkout; each time the customer comes back from
// the processor's page the hosted page signals the attempt, and the workflow applies its outcome
// (an activity re-reads it from the processor). Paid in time: the checkout completes. Unpaid at
// expiresAt: the checkout expires and its payment is canceled. A declined attempt leaves the
// checkout open for another try until it expires.
import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { CheckoutActivities } from '../activities/checkouts';

export const paymentAttemptedSignal = defineSignal<[number]>('paymentAttempted');

export interface CheckoutLifetimeInput {
  checkoutId: string;
  /** ISO 8601; the workflow is startable again from this alone (boot-time restart). */
  expiresAt: string;
}

const { settleAttempt, closeCheckout } = proxyActivities<CheckoutActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

export async function checkoutLifetime(input: CheckoutLifetimeInput): Promise<'completed' | 'expired'> {
  const attempts: number[] = [];
  setHandler(paymentAttemptedSignal, (attempt) => {
    attempts.push(attempt);
  });
  const deadline = Date.parse(input.expiresAt);
  for (;;) {
    const left = deadline - Date.now();
    if (attempts.length === 0 && left > 0) await condition(() => attempts.length > 0, left);
    // Attempts are applied before the deadline is looked at: an authorisation signalled in the
    // same instant as the expiry still completes the checkout.
    while (attempts.length > 0) {
      if ((await settleAttempt(input.checkoutId, attempts.shift() as number)) === 'succeeded') return 'completed';
    }
    if (Date.now() >= deadline) return closeCheckout(input.checkoutId);
  }
}
