// Renew a subscription at the end of its period (a step of its workflow, at that instant in the
// customer's time): the next period, counted from the anchor and cut at `cancelAt` when it falls
// inside (domain/billing-periods.ts periodFrom), and its invoice, finalised; or, when it was
// canceled at the period's end, its end. A change still waiting for its invoice then
// (`pendingUpdate`, made for the period that ends) is dropped first, its invoice voided.
import type { SubscriptionRow } from '../../db/subscriptions';
import type { TransactionContext } from '../context';
import type { StepReads } from './step';
import { nextPeriodOf, startPeriod } from './bill-period';
import { endSubscription } from './end';
import { dropPendingUpdate } from './pending-update';

export async function renewSubscription(ctx: TransactionContext, given: SubscriptionRow, at: Date, { items, customer }: StepReads): Promise<SubscriptionRow> {
  const subscription = given.pending_update === null ? given : await dropPendingUpdate(ctx, given, at);
  if (subscription.cancel_at_period_end) return endSubscription(ctx, subscription, at, 'requested_by_merchant');
  // The step's last write: its workflow's activity (services/subscriptions/step.ts) writes nothing after.
  return startPeriod(ctx, subscription, items, nextPeriodOf(subscription, items, at), at, { last: true, customer });
}
