// A subscription's life: at each period's end, in its customer's time (wall time, or a test
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
}

const { renewSubscription } = proxyActivities<SubscriptionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export async function subscriptionLife(input: SubscriptionLifeInput): Promise<void> {
  const time = billingTime(input.clockId);
  await time.until(input.periodEnd);
  const next = await renewSubscription(input.subscriptionId, input.periodEnd);
  if (next === null) return time.leave();
  return continueAsNew<typeof subscriptionLife>({ ...input, periodEnd: next });
}
