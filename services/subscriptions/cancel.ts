// Cancel a subscription (POST /v1/subscriptions/{id}/cancel): now (`atPeriodEnd` false, the
// default: ended at once, its open invoices voided, its metered items' usage so far billed on a last invoice) or at the end of the paid period
// (`cancelAtPeriodEnd` true, withdrawn by resume; the renewal ends it instead). The merchant's
// feedback and comment go into `cancellationDetails`. The time is the customer's.
import { recordEvent } from '../../db/events';
import { lockOpenInvoicesOf } from '../../db/invoices';
import { newId } from '../../crypto/ids';
import { itemsOf, lockSubscription, updateSubscription, type SubscriptionRow } from '../../db/subscriptions';
import { subscriptionChangeRefusal } from '../../domain/subscription-rules';
import { showSubscription } from './show';
import type { TransactionContext } from '../context';
import { billingNowOf } from '../test-clocks/billing-now';
import { endSubscription } from './end';
import { rescheduleSubscription } from './reschedule';
import { billLastInvoice } from './renew';
import { arrearsLines, billPeriodsUsage } from '../meters/usage';
import { sentBy } from '../../domain/usage';

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
  const details = { reason: 'cancellation_requested', feedback: input.feedback ?? subscription.cancellation_details.feedback, comment: input.comment ?? subscription.cancellation_details.comment };
  const changes = { cancellation_details: details, canceled_at: now };
  if (input.atPeriodEnd !== true) {
    const { subscription: billed, lastInvoiceId } = await billUsageToNow(ctx, await updateSubscription(ctx.db, subscription.id, changes), now);
    const ended = await endSubscription(ctx, billed, now, 'requested_by_merchant', lastInvoiceId);
    // Its workflow finishes now (a paused one waits for nothing else).
    await rescheduleSubscription(ctx, ended);
    return ended;
  }
  const pending = await updateSubscription(ctx.db, subscription.id, { ...changes, cancel_at_period_end: true });
  await recordEvent(ctx.db, { accountId: pending.account_id, mode: pending.mode, type: 'customer.subscription.updated', data: await showSubscription(ctx.db, pending), now });
  return pending;
}

/** Ended now, a subscription with metered items bills their usage so far on a last invoice (left open by the end); not a trial's, which bills none. */
async function billUsageToNow(ctx: TransactionContext, subscription: SubscriptionRow, now: Date): Promise<{ subscription: SubscriptionRow; lastInvoiceId?: string }> {
  const items = await itemsOf(ctx.db, [subscription.id]);
  if (subscription.status === 'trialing' || subscription.status === 'incomplete' || !items.some((item) => item.price.meter_id !== null)) return { subscription };
  const usage = (await billPeriodsUsage(ctx, [{ subscription, items, to: sentBy(now) }])).get(subscription.id);
  const id = newId('invoice', now.getTime());
  const billed = await updateSubscription(ctx.db, subscription.id, { latest_invoice_id: id });
  await billLastInvoice(ctx, billed, arrearsLines(items, usage, { start: subscription.current_period_start, end: now }), now, id);
  return { subscription: billed, lastInvoiceId: id };
}
