// Renew a subscription at the end of its period (a step of its workflow, at that instant in the
// customer's time): the next period, counted from the anchor and cut at `cancelAt` when it falls
// inside (domain/billing-periods.ts periodFrom), and its invoice, finalised; or, when it was
// canceled at the period's end, its end.
import { itemsOf, type SubscriptionRow } from '../../db/subscriptions';
import type { TransactionContext } from '../context';
import { nextPeriodOf, startPeriod } from './bill-period';
import { endSubscription } from './end';

export async function renewSubscription(ctx: TransactionContext, subscription: SubscriptionRow, at: Date): Promise<SubscriptionRow> {
  if (subscription.cancel_at_period_end) return endSubscription(ctx, subscription, at, 'requested_by_merchant');
  const items = await itemsOf(ctx.db, [subscription.id]);
  // The step's last write: its workflow's activity (services/subscriptions/step.ts) writes nothing after.
  return startPeriod(ctx, subscription, items, nextPeriodOf(subscription, items, at), at, {}, undefined, true);
}
