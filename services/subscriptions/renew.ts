// Renew a subscription at the end of its period (a step of its workflow, at that instant in the
// customer's time): the next period, counted from the anchor and cut at `cancelAt` when it falls
// inside (domain/billing-periods.ts periodFrom), and its invoice, finalised, with the usage of the
// period that ends billed in arrears (read with the batch's: services/subscriptions/step.ts); or, when it was
// canceled at the period's end, its end. A change still waiting for its invoice then
// (`pendingUpdate`, made for the period that ends) is dropped first, its invoice voided.
import { newId } from '../../crypto/ids';
import { takePendingProrations } from '../../db/pending-prorations';
import type { InvoiceRow } from '../../db/invoices';
import { updateSubscription, type PricedItem, type SubscriptionRow } from '../../db/subscriptions';
import type { InvoiceLine } from '../../domain/invoices';
import { arrearsLines, type UsageByPrice } from '../meters/usage';
import type { TransactionContext } from '../context';
import type { StepReads } from './step';
import { billPeriod, nextPeriodOf, startPeriod } from './bill-period';
import { endSubscription } from './end';
import { dropPendingUpdate } from './pending-update';

export async function renewSubscription(ctx: TransactionContext, given: SubscriptionRow, at: Date, { items, customer, usage }: StepReads): Promise<SubscriptionRow> {
  const subscription = given.pending_update === null ? given : await dropPendingUpdate(ctx, given, at);
  if (subscription.cancel_at_period_end) return endAsScheduled(ctx, subscription, at, { items, usage });
  // The period that ends bills its usage in arrears, on the next period's invoice.
  const arrears = arrearsLines(items, usage, { start: subscription.current_period_start, end: at });
  // The step's last write: its workflow's activity (services/subscriptions/step.ts) writes nothing after.
  return startPeriod(ctx, subscription, items, nextPeriodOf(subscription, items, at), at, { last: true, customer, arrears });
}

/**
 * The subscription ends as scheduled (at its period's end, or at `cancelAt`): the usage of its
 * last period (one line per metered item) and the proration lines still waiting for a next
 * period's invoice, which will not come, are billed first on a last invoice
 * (`subscription_update`, collected as any, left open by the end), so none is lost.
 */
export async function endAsScheduled(ctx: TransactionContext, given: SubscriptionRow, at: Date, metered: { items: PricedItem[]; usage?: UsageByPrice }): Promise<SubscriptionRow> {
  let subscription = given;
  const id = newId('invoice', at.getTime());
  const arrears = arrearsLines(metered.items, metered.usage, { start: subscription.current_period_start, end: at });
  const prorations = subscription.prorations_pending ? await takePendingProrations(ctx.db, subscription.id, id) : [];
  const lines = [...arrears, ...prorations];
  if (subscription.prorations_pending || lines.length > 0) {
    subscription = await updateSubscription(ctx.db, subscription.id, { prorations_pending: false, ...(lines.length > 0 ? { latest_invoice_id: id } : {}) });
  }
  const last = lines.length === 0 ? undefined : (await billLastInvoice(ctx, subscription, lines, at, id)).id;
  return endSubscription(ctx, subscription, at, 'requested_by_merchant', last);
}

/** A subscription's last invoice, before it ends: its period the lines' (`subscription_update`). */
export function billLastInvoice(ctx: TransactionContext, subscription: SubscriptionRow, lines: InvoiceLine[], at: Date, id: string): Promise<InvoiceRow> {
  const period = { start: new Date(Math.min(...lines.map((l) => Date.parse(l.periodStart!)))), end: new Date(Math.max(...lines.map((l) => Date.parse(l.periodEnd!)))) };
  return billPeriod(ctx, subscription, lines, period, 'subscription_update', at, undefined, { id });
}
