// Delete a test clock: it stops (an advance under way goes no further) and is gone from the list
// and from GET; its customers' subscriptions end with it (services/subscriptions/end.ts, at the
// clock's time), and their workflows, told, see them ended and finish.
import { lockOpenInvoicesOf } from '../../db/invoices';
import type { SubscriptionRow } from '../../db/subscriptions';
import { updateTestClock, type TestClockRow } from '../../db/test-clocks';
import type { TransactionContext } from '../context';
import { endSubscription } from '../subscriptions/end';
import { rescheduleSubscription } from '../subscriptions/reschedule';

export async function deleteTestClock(ctx: TransactionContext, clock: TestClockRow): Promise<TestClockRow> {
  const deleted = await updateTestClock(ctx.db, clock.id, { deleted_at: ctx.clock.now(), advancing_to: null });
  const at = clock.frozen_time;
  const live = () => ctx.db('subscriptions').where({ test_clock_id: clock.id }).whereNotIn('status', ['canceled', 'incomplete_expired']);
  // Their invoices are voided: locked before the subscriptions, in the order a payment of one takes
  // them (the invoice, then its subscription), so the two never wait for each other.
  await lockOpenInvoicesOf(ctx.db, (await live().pluck('id')) as string[]);
  const running = (await live().orderBy('id').forUpdate()) as SubscriptionRow[];
  // Each workflow, told of the change, finds its subscription ended and finishes.
  for (const subscription of running) await rescheduleSubscription(ctx, await endSubscription(ctx, subscription, at, 'requested_by_merchant'));
  await ctx.db('clock_waits').where({ clock_id: clock.id }).delete();
  return deleted;
}
