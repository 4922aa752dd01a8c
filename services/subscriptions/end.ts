// End a subscription (canceled now, at its period's end, or with its test clock): status
// `canceled` with `endedAt`, its open invoices voided (nothing more is collected; but the one whose
// unpaid ladder ended it, when the account chose canceled, stays open to be paid on its page), the customer
// emailed (subscription_canceled) and customer.subscription.deleted, in the caller's transaction.
// Its workflow finds it ended at its next instant and finishes.
import { recordEvent } from '../../db/events';
import { itemsOf, updateSubscription, type SubscriptionRow } from '../../db/subscriptions';
import { cancellationReasonOf } from '../../domain/subscription-rules';
import { subscriptionView } from '../../views/subscription';
import type { TransactionContext } from '../context';
import { customerRecipient, keepEmail } from '../emails/keep';
import { transitionInvoice } from '../invoices/transition';
import { subscriptionChanged } from '../entitlements/refresh-summary';

/**
 * The subscription's draft and open invoices voided (nothing more is collected; a charge in
 * flight is refunded if it succeeds; one paid meanwhile stays paid), but `keep`'s.
 */
export async function voidOpenInvoices(ctx: TransactionContext, subscriptionId: string, keep?: string): Promise<void> {
  const open = (await ctx.db('invoices').where({ subscription_id: subscriptionId }).whereIn('status', ['draft', 'open']).whereNot('id', keep ?? '').pluck('id')) as string[];
  for (const invoiceId of open) await transitionInvoice(ctx, invoiceId, 'void', { subscriptionEnded: true });
}

export async function endSubscription(ctx: TransactionContext, subscription: SubscriptionRow, at: Date, cancelReason: string | null, keepOpenInvoiceId?: string): Promise<SubscriptionRow> {
  const details = { ...subscription.cancellation_details, reason: cancellationReasonOf(cancelReason) ?? subscription.cancellation_details.reason };
  const ended = await updateSubscription(ctx.db, subscription.id, { status: 'canceled', canceled_at: subscription.canceled_at ?? at, ended_at: at, cancel_reason: cancelReason, cancellation_details: details });
  await voidOpenInvoices(ctx, subscription.id, keepOpenInvoiceId);
  const items = await itemsOf(ctx.db, [subscription.id]);
  await recordEvent(ctx.db, { accountId: ended.account_id, mode: ended.mode, type: 'customer.subscription.deleted', data: subscriptionView(ended, items), now: at });
  await keepEmail(ctx, {
    accountId: ended.account_id,
    mode: ended.mode,
    ...(await customerRecipient(ctx, ended.account_id, ended.customer_id)),
    content: { kind: 'subscription_canceled', product: items[0]?.price.product_name ?? '', canceledAt: at },
    objectId: ended.id,
    at,
  });
  await subscriptionChanged(ctx, ended.customer_id, { before: subscription.status, after: ended.status }, at);
  return ended;
}
