// Cancel a subscription (POST /v1/subscriptions/{id}/cancel): now (`atPeriodEnd` false, the
// default: ended at once, its open invoices voided) or at the end of the paid period
// (`cancelAtPeriodEnd` true, withdrawn by resume; the renewal ends it instead). The merchant's
// feedback and comment go into `cancellationDetails`. The time is the customer's.
import { recordEvent } from '../../db/events';
import { lockOpenInvoicesOf } from '../../db/invoices';
import { lockSubscription, updateSubscription, type SubscriptionRow } from '../../db/subscriptions';
import { subscriptionChangeRefusal } from '../../domain/subscription-rules';
import { showSubscription } from './show';
import type { TransactionContext } from '../context';
import { billingNowOf } from '../test-clocks/billing-now';
import { endSubscription } from './end';
import { rescheduleSubscription } from './reschedule';

export interface CancelInput {
  atPeriodEnd?: boolean;
  feedback?: string;
  comment?: string;
}

export async function cancelSubscription(ctx: TransactionContext, subscriptionId: string, input: CancelInput): Promise<SubscriptionRow> {
  // Ended now, its open invoices are voided: locked first, as a payment of one locks them.
  if (input.atPeriodEnd !== true) await lockOpenInvoicesOf(ctx.db, [subscriptionId]);
  const subscription = await lockSubscription(ctx.db, subscriptionId);
  const refusal = subscriptionChangeRefusal(subscription.id, subscription.status, 'cancel');
  if (refusal !== null) throw refusal;
  const now = await billingNowOf(ctx, subscription.customer_id);
  const details = { ...subscription.cancellation_details, feedback: input.feedback ?? subscription.cancellation_details.feedback, comment: input.comment ?? subscription.cancellation_details.comment };
  const changes = { cancellation_details: details, canceled_at: now };
  if (input.atPeriodEnd !== true) {
    const ended = await endSubscription(ctx, await updateSubscription(ctx.db, subscription.id, changes), now, 'requested_by_merchant');
    // Its workflow finishes now (a paused one waits for nothing else).
    await rescheduleSubscription(ctx, ended);
    return ended;
  }
  const pending = await updateSubscription(ctx.db, subscription.id, { ...changes, cancel_at_period_end: true });
  await recordEvent(ctx.db, { accountId: pending.account_id, mode: pending.mode, type: 'customer.subscription.updated', data: await showSubscription(ctx.db, pending), now });
  return pending;
}
