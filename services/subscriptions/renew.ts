// Renew a subscription at the end of its period (the subscription's workflow, at that instant in
// the customer's time): the next period, counted from the anchor (domain/billing-periods.ts), and
// its invoice, finalised, with customer.subscription.updated; or, when it was canceled at the
// period's end, its end. Once per period: a retried activity
// finds the period already moved on and answers the same. The next period's end, or null when the
// subscription has ended.
import { recordEvent } from '../../db/events';
import { itemsOf, lockSubscription, updateSubscription } from '../../db/subscriptions';
import { periodAt } from '../../domain/billing-periods';
import { ENDED_STATUSES } from '../../domain/subscription-rules';
import { subscriptionView } from '../../views/subscription';
import type { ServiceDeps } from '../context';
import { inTransaction } from '../run';
import { billPeriod } from './bill-period';
import { endSubscription } from './end';

export function renewSubscription(deps: ServiceDeps, subscriptionId: string, periodEnd: number): Promise<number | null> {
  return inTransaction(deps, async (ctx) => {
    const subscription = await lockSubscription(ctx.db, subscriptionId);
    if (ENDED_STATUSES.includes(subscription.status)) return null;
    if (subscription.current_period_end.getTime() !== periodEnd) return subscription.current_period_end.getTime();
    // Canceled at the end of the paid period: it ends here instead of renewing.
    if (subscription.cancel_at_period_end) {
      await endSubscription(ctx, subscription, new Date(periodEnd), 'requested_by_merchant');
      return null;
    }
    const items = await itemsOf(ctx.db, [subscriptionId]);
    const [first] = items;
    const period = periodAt(subscription.billing_cycle_anchor, { interval: first!.price.interval, intervalCount: first!.price.interval_count }, new Date(periodEnd));
    const now = new Date(periodEnd);
    const invoice = await billPeriod(ctx, subscription, items, period, 'subscription_cycle', now);
    const renewed = await updateSubscription(ctx.db, subscriptionId, { current_period_start: period.start, current_period_end: period.end, latest_invoice_id: invoice.id });
    await recordEvent(ctx.db, { accountId: renewed.account_id, mode: renewed.mode, type: 'customer.subscription.updated', data: subscriptionView(renewed, items), now });
    return period.end.getTime();
  });
}
