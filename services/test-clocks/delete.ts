// Delete a test clock: it stops (an advance under way goes no further) and is gone from the list
// and from GET; its customers' subscriptions end with it (services/subscriptions/end.ts, at the
// clock's time), and their workflows, woken past any instant, see them ended and finish.
import type { SubscriptionRow } from '../../db/subscriptions';
import { updateTestClock, type TestClockRow } from '../../db/test-clocks';
import { workflowGone } from '../../orchestration/errors';
import { subscriptionStart } from '../../orchestration/starts';
import { clockAdvancedSignal } from '../../workflows/billing-time';
import type { TransactionContext } from '../context';
import { endSubscription } from '../subscriptions/end';

export async function deleteTestClock(ctx: TransactionContext, clock: TestClockRow): Promise<TestClockRow> {
  const deleted = await updateTestClock(ctx.db, clock.id, { deleted_at: ctx.clock.now(), advancing_to: null });
  const at = clock.frozen_time;
  const running = (await ctx.db('subscriptions')
    .where({ test_clock_id: clock.id })
    .whereNotIn('status', ['canceled', 'incomplete_expired'])
    .forUpdate()) as SubscriptionRow[];
  const ended: SubscriptionRow[] = [];
  for (const subscription of running) ended.push(await endSubscription(ctx, subscription, at, 'requested_by_merchant'));
  await ctx.db('clock_waits').where({ clock_id: clock.id }).delete();
  ctx.afterCommit(async () => {
    // Past any instant they wait for: each renews nothing (its subscription has ended) and ends.
    for (const subscription of ended) {
      await ctx.workflows.signal(subscriptionStart(subscription).workflowId, clockAdvancedSignal, [Number.MAX_SAFE_INTEGER]).catch((err: unknown) => {
        if (!workflowGone(err)) throw err;
      });
    }
  });
  return deleted;
}
