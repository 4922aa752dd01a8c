// A subscription's life: an incomplete one first waits 23 hours for its first invoice to be paid
// (activity expireIncomplete: unpaid, it expires and the workflow ends); then at each period's end, in its customer's time (wall time, or a test
// clock: workflows/billing-time.ts), it is renewed (activity renewSubscription: the next period and
// its invoice), then the workflow continues as new for the next period, so its history stays one
// period long. Started when the subscription is made, and at boot for every one not ended.
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { SubscriptionActivities } from '../activities/subscriptions';
import { billingTime } from './billing-time';

export interface SubscriptionLifeInput {
  subscriptionId: string;
  /** The customer's test clock, or null (wall time). */
  clockId: string | null;
  /** The end of the current period (ms since the epoch). */
  periodEnd: number;
  /** An incomplete subscription's expiry, if unpaid then (ms since the epoch). */
  incompleteUntil?: number;
}

const { expireIncomplete, renewSubscription } = proxyActivities<SubscriptionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export async function subscriptionLife(input: SubscriptionLifeInput): Promise<void> {
  const time = billingTime(input.clockId);
  if (input.incompleteUntil !== undefined) {
    await time.until(input.incompleteUntil);
    if (!(await expireIncomplete(input.subscriptionId))) return time.leave();
  }
  await time.until(input.periodEnd);
  const next = await renewSubscription(input.subscriptionId, input.periodEnd);
  if (next === null) return time.leave();
  return continueAsNew<typeof subscriptionLife>({ subscriptionId: input.subscriptionId, clockId: input.clockId, periodEnd: next });
}
