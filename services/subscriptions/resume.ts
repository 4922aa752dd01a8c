// Resume a subscription (POST /v1/subscriptions/{id}/resume): withdraws a pending cancellation
// (`cancelAtPeriodEnd` false again, `canceledAt` cleared); a subscription with nothing to resume
// is returned as it is. (Restarting a paused one comes with pauses.)
import type { CustomerRow } from '../../db/customers';
import { recordEvent } from '../../db/events';
import { itemsOf, lockSubscription, updateSubscription, type SubscriptionRow } from '../../db/subscriptions';
import { subscriptionChangeRefusal } from '../../domain/subscription-rules';
import { subscriptionView } from '../../views/subscription';
import type { TransactionContext } from '../context';
import { billingNow } from '../test-clocks/billing-now';

export async function resumeSubscription(ctx: TransactionContext, subscriptionId: string): Promise<SubscriptionRow> {
  const subscription = await lockSubscription(ctx.db, subscriptionId);
  const refusal = subscriptionChangeRefusal(subscription.id, subscription.status, 'resume');
  if (refusal !== null) throw refusal;
  if (!subscription.cancel_at_period_end) return subscription;
  const customer = (await ctx.db('customers').where({ id: subscription.customer_id }).first('test_clock_id')) as Pick<CustomerRow, 'test_clock_id'>;
  const resumed = await updateSubscription(ctx.db, subscription.id, { cancel_at_period_end: false, canceled_at: null });
  await recordEvent(ctx.db, { accountId: resumed.account_id, mode: resumed.mode, type: 'customer.subscription.updated', data: subscriptionView(resumed, await itemsOf(ctx.db, [resumed.id])), now: await billingNow(ctx, customer) });
  return resumed;
}
