// Resume a subscription (POST /v1/subscriptions/{id}/resume): withdraws a pending cancellation
// (`cancelAtPeriodEnd` false again, `canceledAt` cleared; a `cancelAt` withdrawn, as an update
// with `cancelAt` null does, its workflow told that the next step moved), or restarts a paused one: with a card
// on file (the subscription's, else the customer's default) it is `active` again with a new
// period from now, billed at once (customer.subscription.resumed); with none, 409
// subscription_change_refused. A subscription with neither is returned as it is.
import { recordEvent } from '../../db/events';
import { itemsOf, lockSubscription, updateSubscription, type SubscriptionRow } from '../../db/subscriptions';
import { nextSubscriptionStep, pausedWithoutCard, sameStep, subscriptionChangeRefusal } from '../../domain/subscription-rules';
import { subscriptionView } from '../../views/subscription';
import type { TransactionContext } from '../context';
import { invoiceCard } from '../invoices/collect';
import { billingNowOf } from '../test-clocks/billing-now';
import { nextPeriodOf, startPeriod } from './bill-period';
import { rescheduleSubscription } from './reschedule';
import { subscriptionChanged } from '../entitlements/refresh-summary';
import { showSubscription } from './show';

async function restart(ctx: TransactionContext, subscription: SubscriptionRow, now: Date): Promise<SubscriptionRow> {
  if (subscription.collection_method === 'charge_automatically' && (await invoiceCard(ctx.db, { customer_id: subscription.customer_id, subscription_id: subscription.id })) === null) throw pausedWithoutCard(subscription.id);
  const items = await itemsOf(ctx.db, [subscription.id]);
  const restarted = { status: 'active' as const, billing_cycle_anchor: now, paused_at: null, card_missing_since: null };
  const resumed = await startPeriod(ctx, subscription, items, nextPeriodOf({ ...subscription, ...restarted }, items, now), now, { changes: restarted });
  await recordEvent(ctx.db, { accountId: resumed.account_id, mode: resumed.mode, type: 'customer.subscription.resumed', data: subscriptionView(resumed, items), now });
  await subscriptionChanged(ctx, resumed.customer_id, { before: subscription.status, after: resumed.status }, now);
  await rescheduleSubscription(ctx, resumed);
  return resumed;
}

export async function resumeSubscription(ctx: TransactionContext, subscriptionId: string): Promise<SubscriptionRow> {
  const subscription = await lockSubscription(ctx.db, subscriptionId);
  const refusal = subscriptionChangeRefusal(subscription.id, subscription.status, 'resume');
  if (refusal !== null) throw refusal;
  const now = await billingNowOf(ctx, subscription.customer_id);
  if (subscription.status === 'paused') return restart(ctx, subscription, now);
  if (!subscription.cancel_at_period_end && subscription.cancel_at === null) return subscription;
  const resumed = await updateSubscription(ctx.db, subscription.id, { cancel_at_period_end: false, cancel_at: null, canceled_at: null, cancellation_details: { ...subscription.cancellation_details, reason: null } });
  if (!sameStep(nextSubscriptionStep(subscription), nextSubscriptionStep(resumed))) await rescheduleSubscription(ctx, resumed);
  await recordEvent(ctx.db, { accountId: resumed.account_id, mode: resumed.mode, type: 'customer.subscription.updated', data: await showSubscription(ctx.db, resumed), now });
  return resumed;
}
