// Cancel a subscription (POST /v1/subscriptions/{id}/cancel): now (`atPeriodEnd` false, the
// default: ended at once, its open invoices voided) or at the end of the paid period
// (`cancelAtPeriodEnd` true, withdrawn by resume; the renewal ends it instead). The merchant's
// feedback and comment go into `cancellationDetails`. The time is the customer's.
import type { CustomerRow } from '../../db/customers';
import { recordEvent } from '../../db/events';
import { itemsOf, lockSubscription, updateSubscription, type SubscriptionRow } from '../../db/subscriptions';
import { subscriptionChangeRefusal } from '../../domain/subscription-rules';
import { subscriptionView } from '../../views/subscription';
import type { TransactionContext } from '../context';
import { billingNow } from '../test-clocks/billing-now';
import { endSubscription } from './end';

export interface CancelInput {
  atPeriodEnd?: boolean;
  feedback?: string;
  comment?: string;
}

export async function cancelSubscription(ctx: TransactionContext, subscriptionId: string, input: CancelInput): Promise<SubscriptionRow> {
  const subscription = await lockSubscription(ctx.db, subscriptionId);
  const refusal = subscriptionChangeRefusal(subscription.id, subscription.status, 'cancel');
  if (refusal !== null) throw refusal;
  const customer = (await ctx.db('customers').where({ id: subscription.customer_id }).first('test_clock_id')) as Pick<CustomerRow, 'test_clock_id'>;
  const now = await billingNow(ctx, customer);
  const details = { ...subscription.cancellation_details, feedback: input.feedback ?? subscription.cancellation_details.feedback, comment: input.comment ?? subscription.cancellation_details.comment };
  const changes = { cancellation_details: details, canceled_at: now };
  if (input.atPeriodEnd !== true) return endSubscription(ctx, await updateSubscription(ctx.db, subscription.id, changes), now, 'requested_by_merchant');
  const pending = await updateSubscription(ctx.db, subscription.id, { ...changes, cancel_at_period_end: true });
  await recordEvent(ctx.db, { accountId: pending.account_id, mode: pending.mode, type: 'customer.subscription.updated', data: subscriptionView(pending, await itemsOf(ctx.db, [pending.id])), now });
  return pending;
}
