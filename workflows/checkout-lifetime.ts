// A checkout's 30 minutes. It starts with the checkout; the hosted page signals each attempt when
// it hands the customer to the processor and again when the customer comes back, and the workflow
// applies the attempt's outcome (an activity re-reads it from the processor). An attempt still
// pending is asked about again every minute, so a customer who never comes back is paid anyway.
// Paid in time: the checkout completes. Unpaid at expiresAt: the checkout expires and its payment
// is canceled. A declined attempt leaves the checkout open for another try until it expires.
import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { CheckoutActivities } from '../activities/checkouts';
import { OUTCOME_POLL_MS } from '../domain/checkout-rules';

export const paymentAttemptedSignal = defineSignal<[number]>('paymentAttempted');

export interface CheckoutLifetimeInput {
  checkoutId: string;
  /** ISO 8601; the workflow is startable again from this alone (boot-time restart). */
  expiresAt: string;
  /** An attempt with the processor when the workflow (re)started: asked about at once. */
  attemptInFlight?: number;
}

const { settleAttempt, closeCheckout } = proxyActivities<CheckoutActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

export async function checkoutLifetime(input: CheckoutLifetimeInput): Promise<'completed' | 'expired'> {
  const attempts: number[] = input.attemptInFlight === undefined ? [] : [input.attemptInFlight];
  setHandler(paymentAttemptedSignal, (attempt) => {
    attempts.push(attempt);
  });
  const deadline = Date.parse(input.expiresAt);
  // The newest attempt the processor had not decided when last asked, and when to ask again.
  let pending: { attempt: number; askAt: number } | undefined;
  for (;;) {
    const wakeAt = Math.min(deadline, pending?.askAt ?? Infinity);
    if (attempts.length === 0 && wakeAt > Date.now()) await condition(() => attempts.length > 0, wakeAt - Date.now());
    if (attempts.length === 0 && pending !== undefined && Date.now() >= pending.askAt && Date.now() < deadline) attempts.push(pending.attempt);
    // Attempts are applied before the deadline is looked at: an authorisation signalled in the
    // same instant as the expiry still completes the checkout.
    while (attempts.length > 0) {
      const attempt = attempts.shift() as number;
      const result = await settleAttempt(input.checkoutId, attempt);
      if (result === 'succeeded') return 'completed';
      if (result === 'pending' && attempt >= (pending?.attempt ?? 0)) pending = { attempt, askAt: Date.now() + OUTCOME_POLL_MS };
      else if (result === 'failed' && attempt === pending?.attempt) pending = undefined;
    }
    if (Date.now() >= deadline) return closeCheckout(input.checkoutId);
  }
}
