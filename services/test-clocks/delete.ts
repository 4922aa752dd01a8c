// Delete a test clock: it stops (an advance under way goes no further) and is gone from the list
// and from GET; its customers' subscriptions end with it (canceled at the clock's time, with
// customer.subscription.deleted), and their workflows, woken past any instant, see them ended
// and finish.
import { recordEvent } from '../../db/events';
import { itemsOf, type SubscriptionRow } from '../../db/subscriptions';
import { updateTestClock, type TestClockRow } from '../../db/test-clocks';
import { WorkflowClosedError, WorkflowNotFoundError } from '../../orchestration/errors';
import { subscriptionStart } from '../../orchestration/starts';
import { clockAdvancedSignal } from '../../workflows/billing-time';
import { subscriptionView } from '../../views/subscription';
import type { TransactionContext } from '../context';

export async function deleteTestClock(ctx: TransactionContext, clock: TestClockRow): Promise<TestClockRow> {
  const deleted = await updateTestClock(ctx.db, clock.id, { deleted_at: ctx.clock.now(), advancing_to: null });
  const at = clock.frozen_time;
  const ended = (await ctx.db('subscriptions')
    .where({ test_clock_id: clock.id })
    .whereNotIn('status', ['canceled', 'incomplete_expired'])
    .update({ status: 'canceled', canceled_at: at, ended_at: at, cancel_reason: 'requested_by_merchant' })
    .returning('*')) as SubscriptionRow[];
  const items = ended.length === 0 ? [] : await itemsOf(ctx.db, ended.map((s) => s.id));
  for (const subscription of ended) {
    const view = subscriptionView(subscription, items.filter((i) => i.subscription_id === subscription.id));
    await recordEvent(ctx.db, { accountId: subscription.account_id, mode: subscription.mode, type: 'customer.subscription.deleted', data: view, now: at });
  }
  await ctx.db('clock_waits').where({ clock_id: clock.id }).delete();
  ctx.afterCommit(async () => {
    // Past any instant they wait for: each renews nothing (its subscription has ended) and ends.
    for (const subscription of ended) {
      await ctx.workflows.signal(subscriptionStart(subscription).workflowId, clockAdvancedSignal, [Number.MAX_SAFE_INTEGER]).catch((err: unknown) => {
        if (!(err instanceof WorkflowNotFoundError || err instanceof WorkflowClosedError)) throw err;
      });
    }
  });
  return deleted;
}
