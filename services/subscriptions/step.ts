// A step of a subscription's life (its workflow's one activity, workflows/subscription.ts): the
// step the workflow waited for is taken if the row still says it is due (a change since, or a
// retried activity, finds it moved on and takes nothing), and the next step is answered from the
// row (domain/subscription-rules.ts nextSubscriptionStep). The time is the step's instant in the
// customer's time.
import { lockSubscription, type SubscriptionRow } from '../../db/subscriptions';
import { nextSubscriptionStep, sameStep, type SubscriptionDue, type SubscriptionNext } from '../../domain/subscription-rules';
import type { ServiceDeps, TransactionContext } from '../context';
import { inTransaction } from '../run';
import { announceUpcomingInvoice } from '../invoices/upcoming';
import { endSubscription } from './end';
import { expireIncomplete } from './expire';
import { renewSubscription } from './renew';
import { endTrial, noticeTrialEnd } from './trial';

const STEPS: Record<SubscriptionDue['kind'], (ctx: TransactionContext, subscription: SubscriptionRow, at: Date) => Promise<SubscriptionRow>> = {
  expire_incomplete: expireIncomplete,
  trial_will_end: noticeTrialEnd,
  trial_end: endTrial,
  cancel: (ctx, subscription, at) => endSubscription(ctx, subscription, at, 'requested_by_merchant'),
  invoice_upcoming: announceUpcomingInvoice,
  renew: renewSubscription,
};

/** Takes `due` (null: nothing, only ask) if it is still due; the step after it. */
export function stepSubscription(deps: ServiceDeps, subscriptionId: string, due: SubscriptionDue | null): Promise<SubscriptionNext> {
  return inTransaction(deps, async (ctx) => {
    let subscription = await lockSubscription(ctx.db, subscriptionId);
    if (due !== null && sameStep(nextSubscriptionStep(subscription), due)) subscription = await STEPS[due.kind](ctx, subscription, new Date(due.at));
    return nextSubscriptionStep(subscription);
  });
}
