// A checkout's 30 minutes. It starts with the checkout; the hosted page signals each attempt when
// it hands the customer to the processor and again when the customer comes back, and the workflow
// applies the attempt's outcome (an activity re-reads it from the processor). An attempt still
// pending is asked about again every minute, so a customer who never comes back is paid anyway.
// Paid in time: the checkout completes. Unpaid at expiresAt: the checkout expires and its payment
// is canceled. A declined attempt leaves the checkout open for another try until it expires. An
// attempt whose outcome the processor cannot tell at the expiry (a gateway's UNKNOWN) keeps the
// checkout open: closing is asked again with backoff until the processor knows.
// The return page asks for an attempt's outcome with the attemptOutcome update, answered once the
// loop has applied the attempt (or the checkout closed).
import { allHandlersFinished, condition, defineSignal, defineUpdate, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { AttemptResult, CheckoutActivities } from '../activities/checkouts';
import { OUTCOME_POLL_MS } from '../domain/checkout-rules';
import { chargePollDelayMs } from '../domain/saved-cards';

export const paymentAttemptedSignal = defineSignal<[number]>('paymentAttempted');
/** Queues the attempt as the signal does; answers with its result, or how the checkout closed first. */
export const attemptOutcomeUpdate = defineUpdate<AttemptResult | 'completed' | 'expired', [number]>('attemptOutcome');

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
  // The result of each attempt the loop applied last, and how the checkout closed.
  const settled = new Map<number, AttemptResult>();
  let closed: 'completed' | 'expired' | undefined;
  setHandler(
    attemptOutcomeUpdate,
    async (attempt) => {
      // A result from before this request (a pending one, say) is not the answer: the attempt is asked about again.
      settled.delete(attempt);
      attempts.push(attempt);
      await condition(() => settled.has(attempt) || closed !== undefined);
      return settled.get(attempt) ?? closed!;
    },
    {
      validator: (attempt) => {
        // Attempts are numbered from 1; anything else is not an attempt this checkout can have made.
        if (!Number.isSafeInteger(attempt) || attempt <= 0) throw new Error(`no such attempt: ${attempt}`);
      },
    },
  );
  const close = async (outcome: 'completed' | 'expired') => {
    closed = outcome;
    // Waiting updates answer before the workflow ends.
    await condition(allHandlersFinished);
    return outcome;
  };
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
      settled.set(attempt, result);
      if (result === 'succeeded') return close('completed');
      if (result === 'pending' && attempt >= (pending?.attempt ?? 0)) pending = { attempt, askAt: Date.now() + OUTCOME_POLL_MS };
      else if (result === 'failed' && attempt === pending?.attempt) pending = undefined;
    }
    if (Date.now() >= deadline) {
      // Only a processor that cannot tell answers `pending` (histories from before never do).
      for (let asked = 0; ; asked++) {
        const closing = await closeCheckout(input.checkoutId);
        if (closing !== 'pending') return close(closing);
        await sleep(chargePollDelayMs(asked));
      }
    }
  }
}
