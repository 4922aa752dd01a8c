// A change to a subscription that moves its next step (a trial's end, `cancelAt`, a resume, an
// end) tells its workflow, which asks again what is due (workflows/subscription.ts). On a test
// clock the new wait is written in the change's transaction, with the clock locked, so an advance
// that starts before the workflow has asked again still stops at the new instant.
import type { SubscriptionRow } from '../../db/subscriptions';
import { deleteClockWait, putClockWait, shareTestClock } from '../../db/test-clocks';
import { nextSubscriptionStep } from '../../domain/subscription-rules';
import { workflowGone } from '../../orchestration/errors';
import { subscriptionStart } from '../../orchestration/starts';
import { subscriptionChangedSignal } from '../../workflows/subscription';
import type { TransactionContext } from '../context';

/** On a test clock, the subscription's workflow waits for its next step (or for nothing). */
export async function putSubscriptionWait(ctx: TransactionContext, subscription: SubscriptionRow, workflowId: string): Promise<void> {
  if (subscription.test_clock_id === null) return;
  const next = nextSubscriptionStep(subscription);
  if ('at' in next) {
    await putClockWait(ctx.db, { workflowId, clockId: subscription.test_clock_id, dueAt: new Date(next.at) });
  } else {
    await shareTestClock(ctx.db, subscription.test_clock_id);
    await deleteClockWait(ctx.db, workflowId);
  }
}

export async function rescheduleSubscription(ctx: TransactionContext, subscription: SubscriptionRow): Promise<void> {
  const { workflowId } = subscriptionStart(subscription);
  await putSubscriptionWait(ctx, subscription, workflowId);
  ctx.afterCommit(async () => {
    await ctx.workflows.signal(workflowId, subscriptionChangedSignal).catch((err: unknown) => {
      if (!workflowGone(err)) throw err;
    });
  });
}
