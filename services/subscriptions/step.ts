// A step of a subscription's life (its workflow's one activity, workflows/subscription.ts): the
// step the workflow waited for is taken if the row still says it is due (a change since, or a
// retried activity, finds it moved on and takes nothing), and the next step is answered from the
// row (domain/subscription-rules.ts nextSubscriptionStep). The time is the step's instant in the
// customer's time. Steps asked for at once (the subscriptions due at one instant) are taken in one
// transaction.
import { customerTimes, type CustomerTime } from '../../db/customers';
import { lockAwaitedInvoicesOf, lockOpenInvoicesOf } from '../../db/invoices';
import { itemsBySubscription, lockSubscriptionsOnClocks, type LockedClock, type PricedItem, type SubscriptionRow } from '../../db/subscriptions';
import { clockWaitDeletion, clockWaitStatement } from '../../db/test-clocks';
import { subscriptionStart } from '../../orchestration/starts';
import { nudgeAdvance } from '../test-clocks/step';
import { nextSubscriptionStep, sameStep, type SubscriptionDue, type SubscriptionNext } from '../../domain/subscription-rules';
import type { ServiceDeps, TransactionContext } from '../context';
import { inTransaction } from '../run';
import { announceUpcomingInvoice } from '../invoices/upcoming';
import { billPeriodsUsage, periodsUsageSoFar, type UsageByPrice } from '../meters/usage';
import { expireIncomplete } from './expire';
import { dropPendingUpdate } from './pending-update';
import { resumeCollection } from './pause';
import { endAsScheduled, renewSubscription } from './renew';
import { endTrial, noticeTrialEnd } from './trial';

/** What the steps taken together read at once for each subscription: its items, its customer's time, and its period's usage (billed by renewals and scheduled ends, shown so far by invoice.upcoming). */
export interface StepReads {
  items: PricedItem[];
  customer: CustomerTime;
  usage?: UsageByPrice;
}

/** The steps that bill a period's usage in arrears: a renewal, and an end at `cancelAt`. */
const ARREARS_STEPS: readonly SubscriptionDue['kind'][] = ['renew', 'cancel'];

/** The steps that can end a subscription before its period's end, voiding its open invoices. */
const ENDING_STEPS: readonly SubscriptionDue['kind'][] = ['expire_incomplete', 'trial_end', 'cancel', 'pending_update_expires'];

const STEPS: Record<SubscriptionDue['kind'], (ctx: TransactionContext, subscription: SubscriptionRow, at: Date, reads: StepReads) => Promise<SubscriptionRow>> = {
  expire_incomplete: expireIncomplete,
  trial_will_end: noticeTrialEnd,
  trial_end: endTrial,
  cancel: (ctx, subscription, at, { items, usage }) => endAsScheduled(ctx, subscription, at, { items, usage }),
  invoice_upcoming: announceUpcomingInvoice,
  renew: renewSubscription,
  resume_collection: resumeCollection,
  pending_update_expires: dropPendingUpdate,
};

/**
 * The step after, and on a test clock the clock's time (ms) when the workflow's wait for it was
 * written, or removed when there is nothing to wait for, in the step's transaction: the workflow
 * then asks the clock nothing more before it waits (workflows/billing-time.ts `until`).
 */
export type SteppedSubscription = SubscriptionNext & { clockNow?: number };

/** A step asked for by a subscription's workflow: `due` (null: nothing, only ask). */
export interface StepRequest {
  subscriptionId: string;
  due: SubscriptionDue | null;
}

/**
 * Takes each request's step if it is still due, all in one transaction (the subscriptions due at
 * one instant, as their workflows ask at once: activities/subscriptions.ts); the step after each,
 * in the order asked.
 */
export function stepSubscriptions(deps: ServiceDeps, requests: readonly StepRequest[]): Promise<SteppedSubscription[]> {
  return inTransaction(deps, async (ctx) => {
    // A step that can end its subscription voids the subscription's open invoices: those are
    // locked first, as a payment of one takes them (the invoice, then its subscription). Renewals,
    // the many, lock only the invoices of changes waiting (below): the rare one that ends a past-due
    // subscription at its period's end can meet a payment of its invoice in a deadlock, which
    // PostgreSQL breaks and the step retries.
    const ending = requests.flatMap((r) => (r.due !== null && ENDING_STEPS.includes(r.due.kind) ? [r.subscriptionId] : []));
    if (ending.length > 0) await lockOpenInvoicesOf(ctx.db, ending);
    // A renewal drops a change still waiting for its invoice, voiding that invoice: it is locked first too.
    const renewing = requests.flatMap((r) => (r.due?.kind === 'renew' ? [r.subscriptionId] : []));
    if (renewing.length > 0) await lockAwaitedInvoicesOf(ctx.db, renewing);
    const locked = new Map((await lockSubscriptionsOnClocks(ctx.db, requests.map((r) => r.subscriptionId))).map((l) => [l.subscription.id, l]));
    // What the steps still due read, read once for them all (none when only asked).
    const taking = [...locked.values()].map((l) => l.subscription).filter((s) => requests.some((r) => r.subscriptionId === s.id && r.due !== null && sameStep(nextSubscriptionStep(s), r.due)));
    const items = taking.length === 0 ? new Map<string, PricedItem[]>() : await itemsBySubscription(ctx.db, taking.map((s) => s.id));
    const customers = taking.length === 0 ? new Map<string, CustomerTime>() : await customerTimes(ctx.db, taking.map((s) => s.customer_id));
    // The usage the renewals and ends bill, marked invoiced, and the usage so far the notices
    // show: one statement each for the batch (none without metered items).
    const periods = (kinds: readonly SubscriptionDue['kind'][], end: (subscription: SubscriptionRow, at: Date) => Date) =>
      taking.flatMap((subscription) => {
        // Taken only when due: its next step is the one asked for.
        const due = nextSubscriptionStep(subscription);
        return 'at' in due && kinds.includes(due.kind) ? [{ subscription, items: items.get(subscription.id)!, to: end(subscription, new Date(due.at)) }] : [];
      });
    const usage = new Map([
      ...(await billPeriodsUsage(ctx, periods(ARREARS_STEPS, (_, at) => at))),
      ...(await periodsUsageSoFar(ctx, periods(['invoice_upcoming'], (subscription) => subscription.current_period_end))),
    ]);
    const clocks = new Map<string, LockedClock>();
    const stepped: SteppedSubscription[] = [];
    for (const { subscriptionId, due } of requests) {
      const row = locked.get(subscriptionId);
      if (row === undefined) throw new Error(`subscription ${subscriptionId} not found`);
      let { subscription } = row;
      if (due !== null && sameStep(nextSubscriptionStep(subscription), due)) {
        const reads = { items: items.get(subscriptionId)!, customer: customers.get(subscription.customer_id)!, usage: usage.get(subscriptionId) };
        subscription = await STEPS[due.kind](ctx, subscription, new Date(due.at), reads);
      }
      // A second request for the subscription in the batch (a retried activity) finds it as the first left it.
      locked.set(subscriptionId, { ...row, subscription });
      const next = nextSubscriptionStep(subscription);
      const { clock } = row;
      if (clock === null) {
        stepped.push(next);
        continue;
      }
      // The clock's row is shared since the subscription was read: it has not moved, and the wait
      // goes with the COMMIT, after the steps' own writes.
      const { workflowId } = subscriptionStart(subscription);
      ctx.atCommit('at' in next ? clockWaitStatement({ workflowId, clockId: clock.id, dueAt: new Date(next.at) }) : clockWaitDeletion(workflowId));
      clocks.set(clock.id, clock);
      stepped.push({ ...next, clockNow: clock.frozen_time.getTime() });
    }
    for (const clock of clocks.values()) ctx.afterCommit(() => nudgeAdvance(deps, clock));
    return stepped;
  });
}
