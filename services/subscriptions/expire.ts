// An incomplete subscription whose first invoice is still unpaid 23 hours after it was made
// (its workflow, at that instant in the customer's time) expires: `incomplete_expired`, final,
// its invoice voided, customer.subscription.updated. One paid in time is left alone.
import { recordEvent } from '../../db/events';
import { lockSubscription, updateSubscription } from '../../db/subscriptions';
import { ENDED_STATUSES } from '../../domain/subscription-rules';
import type { ServiceDeps } from '../context';
import { transitionInvoice } from '../invoices/transition';
import { inTransaction } from '../run';
import { billingNowOf } from '../test-clocks/billing-now';
import { showSubscription } from './show';

/** Whether the subscription still runs (false: it has expired, or had ended). */
export function expireIncomplete(deps: ServiceDeps, subscriptionId: string): Promise<boolean> {
  return inTransaction(deps, async (ctx) => {
    const subscription = await lockSubscription(ctx.db, subscriptionId);
    if (subscription.status !== 'incomplete') return !ENDED_STATUSES.includes(subscription.status);
    const now = await billingNowOf(ctx, subscription.customer_id);
    const open = (await ctx.db('invoices').where({ subscription_id: subscription.id, status: 'open' }).pluck('id')) as string[];
    for (const invoiceId of open) await transitionInvoice(ctx, invoiceId, 'void');
    const expired = await updateSubscription(ctx.db, subscription.id, { status: 'incomplete_expired', ended_at: now, checkout_url: null });
    await recordEvent(ctx.db, { accountId: expired.account_id, mode: expired.mode, type: 'customer.subscription.updated', data: await showSubscription(ctx.db, expired), now });
    return false;
  });
}
