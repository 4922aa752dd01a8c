// A pause of a subscription's collection (`pauseCollection`, set by an update:
// domain/pause-collection.ts): the invoice each period makes while it is in force follows its
// behaviour and is never collected (no charge, no dunning, no amount carried over taken):
// `keep_as_draft` keeps it a draft (it stays one after the pause), `mark_uncollectible` finalises
// it and marks it uncollectible at once, `void` finalises and voids it. At `resumesAt` a step of
// the subscription's life ends the pause, and the periods after are collected again.
import { recordEvents, type NewEvent } from '../../db/events';
import type { CustomerTime } from '../../db/customers';
import type { InvoiceRow } from '../../db/invoices';
import { runStatements, type Statement } from '../../db/sql';
import { updateSubscription, type SubscriptionRow } from '../../db/subscriptions';
import type { PauseBehavior } from '../../domain/pause-collection';
import { subscriptionView } from '../../views/subscription';
import type { TransactionContext } from '../context';
import { writeDraftInvoice } from '../invoices/draft';
import { finalizeInvoice, transitionInvoice } from '../invoices/transition';
import type { StepReads } from './step';

/** A period's invoice `draft` made while collection is paused with `behavior`; `written` as services/subscriptions/bill-period.ts billPeriod's. */
export async function billWhilePaused(ctx: TransactionContext, draft: InvoiceRow, behavior: PauseBehavior, written: { after?: readonly NewEvent[]; customer: CustomerTime; before?: readonly Statement[] }): Promise<InvoiceRow> {
  if (behavior !== 'keep_as_draft') {
    const opened = await finalizeInvoice(ctx, draft, { fresh: true, after: written.after, customer: written.customer, before: written.before, hold: true });
    return transitionInvoice(ctx, opened.id, behavior);
  }
  await runStatements(ctx.db, written.before ?? []);
  const kept = await writeDraftInvoice(ctx, draft);
  if (written.after !== undefined && written.after.length > 0) await recordEvents(ctx.db, written.after);
  return kept;
}

/** The pause ends at its `resumesAt` (a step of the subscription's workflow): customer.subscription.updated. */
export async function resumeCollection(ctx: TransactionContext, subscription: SubscriptionRow, at: Date, { items }: StepReads): Promise<SubscriptionRow> {
  const resumed = await updateSubscription(ctx.db, subscription.id, { pause_behavior: null, pause_resumes_at: null });
  await recordEvents(ctx.db, [{ accountId: resumed.account_id, mode: resumed.mode, type: 'customer.subscription.updated', data: subscriptionView(resumed, items), now: at }]);
  return resumed;
}
