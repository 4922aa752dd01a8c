// A subscription's life (DESIGN.md decision 13), in its customer's time (wall time, or a test
// clock: workflows/billing-time.ts): it waits for the subscription's next step and takes it
// (activity stepSubscription, which answers the step after), until the subscription ends. The
// steps come from the row (domain/subscription-rules.ts nextSubscriptionStep): an incomplete one's
// expiry, a trial's notice and end, a `cancelAt`, each period's renewal. A merchant's change that
// moves the next step, or the first invoice's payment (the expiry is then not due), signals
// `subscriptionChanged`, and the workflow asks again; while paused there is no step, and it waits
// for that signal alone. After each new period it continues as new, so its history stays one
// period long. Started when the subscription is made, and at boot
// for every one not ended.
import { condition, continueAsNew, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { SubscriptionActivities } from '../activities/subscriptions';
import type { SubscriptionDue, SubscriptionNext } from '../domain/subscription-rules';
import { billingTime } from './billing-time';

export interface SubscriptionLifeInput {
  subscriptionId: string;
  /** The customer's test clock, or null (wall time). */
  clockId: string | null;
  /**
   * The next step as the row said when this run began; on a clock, with the clock's time if the
   * wait for it is written already (continued as new after a step).
   */
  next: SubscriptionNext & { clockNow?: number };
}

/** The subscription was changed: its next step may have moved. */
export const subscriptionChangedSignal = defineSignal('subscriptionChanged');

const { stepSubscription } = proxyActivities<SubscriptionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** Steps after which the history is long enough to start afresh, even within a period (many changes). */
const STEPS_PER_RUN = 50;

export async function subscriptionLife(input: SubscriptionLifeInput): Promise<void> {
  const time = billingTime(input.clockId);
  let changes = 0;
  setHandler(subscriptionChangedSignal, () => {
    changes++;
  });
  let next = input.next;
  let seen = changes;
  for (let steps = 0; ; steps++) {
    // On a clock, a step answers the clock's time with its wait for the next step written (or, with
    // none to wait for, removed) in its transaction.
    const written = next.clockNow;
    if (next.kind === 'ended') return written === undefined ? time.leave() : undefined;
    let due: SubscriptionDue | null = null;
    if (next.kind === 'idle') {
      if (written === undefined) await time.leave();
      await condition(() => changes !== seen);
    } else if (await time.until(next.at, () => changes !== seen, written)) {
      due = { kind: next.kind, at: next.at };
    }
    // Counted before asking: a change committed after the step read the row is asked about again.
    seen = changes;
    next = await stepSubscription(input.subscriptionId, due);
    const newPeriod = due !== null && (due.kind === 'renew' || due.kind === 'trial_end');
    // A change signalled meanwhile is asked about first: a new run would not know of it.
    if ((newPeriod || steps >= STEPS_PER_RUN) && next.kind !== 'ended' && changes === seen) {
      // The clock's time as this run knows it: an advance may have told it more than the step did.
      const known = next.clockNow === undefined ? next : { ...next, clockNow: Math.max(next.clockNow, time.now()) };
      return continueAsNew<typeof subscriptionLife>({ ...input, next: known });
    }
  }
}
