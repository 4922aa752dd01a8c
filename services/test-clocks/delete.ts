// Delete a test clock: it stops (an advance under way goes no further) and is gone from the list
// and from GET; its customers' subscriptions end with it (services/subscriptions/end.ts, at the
// clock's time), and their workflows, told, see them ended and finish.
import type { SubscriptionRow } from '../../db/subscriptions';
import { updateTestClock, type TestClockRow } from '../../db/test-clocks';
import type { TransactionContext } from '../context';
import { endSubscription } from '../subscriptions/end';
import { rescheduleSubscription } from '../subscriptions/reschedule';

export async function deleteTestClock(ctx: TransactionContext, clock: TestClockRow): Promise<TestClockRow> {
  const deleted = await updateTestClock(ctx.db, clock.id, { deleted_at: ctx.clock.now(), advancing_to: null });
  const at = clock.frozen_time;
  const running = (await ctx.db('subscriptions')
    .where({ test_clock_id: clock.id })
    .whereNotIn('status', ['canceled', 'incomplete_expired'])
    .forUpdate()) as SubscriptionRow[];
  // Each workflow, told of the change, finds its subscription ended and finishes.
  for (const subscription of running) await rescheduleSubscription(ctx, await endSubscription(ctx, subscription, at, 'requested_by_merchant'));
  await ctx.db('clock_waits').where({ clock_id: clock.id }).delete();
  return deleted;
}
