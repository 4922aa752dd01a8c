// Resume a subscription (POST /v1/subscriptions/{id}/resume): withdraws a pending cancellation
// (`cancelAtPeriodEnd` false again, `canceledAt` cleared); a subscription with nothing to resume
// is returned as it is. (Restarting a paused one comes with pauses.)
import { recordEvent } from '../../db/events';
import { lockSubscription, updateSubscription, type SubscriptionRow } from '../../db/subscriptions';
import { subscriptionChangeRefusal } from '../../domain/subscription-rules';
import { showSubscription } from './show';
import type { TransactionContext } from '../context';
import { billingNowOf } from '../test-clocks/billing-now';

export async function resumeSubscription(ctx: TransactionContext, subscriptionId: string): Promise<SubscriptionRow> {
  const subscription = await lockSubscription(ctx.db, subscriptionId);
  const refusal = subscriptionChangeRefusal(subscription.id, subscription.status, 'resume');
  if (refusal !== null) throw refusal;
  if (!subscription.cancel_at_period_end) return subscription;
  const resumed = await updateSubscription(ctx.db, subscription.id, { cancel_at_period_end: false, canceled_at: null });
  await recordEvent(ctx.db, { accountId: resumed.account_id, mode: resumed.mode, type: 'customer.subscription.updated', data: await showSubscription(ctx.db, resumed), now: await billingNowOf(ctx, subscription.customer_id) });
  return resumed;
}
