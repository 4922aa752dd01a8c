// Renew a subscription at the end of its period (a step of its workflow, at that instant in the
// customer's time): the next period, counted from the anchor and cut at `cancelAt` when it falls
// inside (domain/billing-periods.ts periodFrom), and its invoice, finalised; or, when it was
// canceled at the period's end, its end. A change still waiting for its invoice then
// (`pendingUpdate`, made for the period that ends) is dropped first, its invoice voided.
import { newId } from '../../crypto/ids';
import { takePendingProrations } from '../../db/pending-prorations';
import { updateSubscription, type SubscriptionRow } from '../../db/subscriptions';
import type { TransactionContext } from '../context';
import type { StepReads } from './step';
import { billPeriod, nextPeriodOf, startPeriod } from './bill-period';
import { endSubscription } from './end';
import { dropPendingUpdate } from './pending-update';

export async function renewSubscription(ctx: TransactionContext, given: SubscriptionRow, at: Date, { items, customer }: StepReads): Promise<SubscriptionRow> {
  const subscription = given.pending_update === null ? given : await dropPendingUpdate(ctx, given, at);
  if (subscription.cancel_at_period_end) return endAsScheduled(ctx, subscription, at);
  // The step's last write: its workflow's activity (services/subscriptions/step.ts) writes nothing after.
  return startPeriod(ctx, subscription, items, nextPeriodOf(subscription, items, at), at, { last: true, customer });
}

/**
 * The subscription ends as scheduled (at its period's end, or at `cancelAt`): the proration lines
 * still waiting for a next period's invoice, which will not come, are billed first on a last
 * invoice (`subscription_update`, collected as any, left open by the end), so none is lost.
 */
export async function endAsScheduled(ctx: TransactionContext, given: SubscriptionRow, at: Date): Promise<SubscriptionRow> {
  let subscription = given;
  let last: string | undefined;
  if (subscription.prorations_pending) {
    const id = newId('invoice', at.getTime());
    const lines = await takePendingProrations(ctx.db, subscription.id, id);
    subscription = await updateSubscription(ctx.db, subscription.id, { prorations_pending: false, ...(lines.length > 0 ? { latest_invoice_id: id } : {}) });
    if (lines.length > 0) {
      const period = { start: new Date(Math.min(...lines.map((l) => Date.parse(l.periodStart!)))), end: new Date(Math.max(...lines.map((l) => Date.parse(l.periodEnd!)))) };
      last = (await billPeriod(ctx, subscription, lines, period, 'subscription_update', at, undefined, { id })).id;
    }
  }
  return endSubscription(ctx, subscription, at, 'requested_by_merchant', last);
}
