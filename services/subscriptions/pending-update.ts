// A change waiting for its invoice (`pendingUpdate`, DESIGN.md "Subscription changes"): applied
// when that invoice is paid (by its charge, or on its page: services/invoices/collect.ts
// recordInvoicePaid), or dropped with the invoice voided at its `expiresAt` (a step of the
// subscription's workflow). Either way customer.subscription.updated, and the workflow told when
// the next step moved.
import { newId } from '../../crypto/ids';
import { recordEvent } from '../../db/events';
import type { InvoiceRow } from '../../db/invoices';
import { itemsOf, lockSubscription, replaceItems, updateSubscription, type SubscriptionRow } from '../../db/subscriptions';
import { nextSubscriptionStep, sameStep } from '../../domain/subscription-rules';
import { subscriptionView } from '../../views/subscription';
import type { TransactionContext } from '../context';
import { transitionInvoice } from '../invoices/transition';
import { newPeriodChanges } from './change';
import { rescheduleSubscription } from './reschedule';
import { subscriptionChanged } from '../entitlements/refresh-summary';

async function told(ctx: TransactionContext, before: SubscriptionRow, after: SubscriptionRow, now: Date): Promise<SubscriptionRow> {
  if (!sameStep(nextSubscriptionStep(before), nextSubscriptionStep(after))) await rescheduleSubscription(ctx, after);
  await recordEvent(ctx.db, { accountId: after.account_id, mode: after.mode, type: 'customer.subscription.updated', data: subscriptionView(after, await itemsOf(ctx.db, [after.id])), now });
  return after;
}

/** The invoice paid is the one a change waits for: the change applies now. */
export async function applyPendingUpdate(ctx: TransactionContext, invoice: InvoiceRow, now: Date): Promise<void> {
  if (invoice.subscription_id === null || invoice.billing_reason !== 'subscription_update') return;
  const subscription = await lockSubscription(ctx.db, invoice.subscription_id);
  const pending = subscription.pending_update;
  if (pending === null || pending.invoiceId !== invoice.id) return;
  const items = pending.items.map((item) => ({ id: item.id ?? newId('subscriptionItem', now.getTime()), subscription_id: subscription.id, price_id: item.priceId, quantity: item.quantity, created_at: now }));
  await replaceItems(ctx.db, subscription.id, items);
  await subscriptionChanged(ctx, subscription.customer_id, { before: subscription.status, after: subscription.status, itemsChanged: true }, now);
  const newPeriod = pending.newPeriod === null ? null : { start: new Date(pending.newPeriod.start), end: new Date(pending.newPeriod.end) };
  await told(ctx, subscription, await updateSubscription(ctx.db, subscription.id, { pending_update: null, ...newPeriodChanges(newPeriod) }), now);
}

/** Its `expiresAt` come with its invoice unpaid: the change is dropped and the invoice voided (a charge in flight is refunded if it succeeds). */
export async function dropPendingUpdate(ctx: TransactionContext, subscription: SubscriptionRow, at: Date): Promise<SubscriptionRow> {
  const pending = subscription.pending_update!;
  await transitionInvoice(ctx, pending.invoiceId, 'void', { subscriptionEnded: true });
  return told(ctx, subscription, await updateSubscription(ctx.db, subscription.id, { pending_update: null }), at);
}
