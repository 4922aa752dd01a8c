// An invoice for a period of a subscription: its lines from the items' prices
// (domain/invoices.ts periodLines), made and finalised in the subscription's transaction, in the
// customer's time. Used when a subscription starts and at each renewal.
import { newId } from '../../crypto/ids';
import type { InvoiceRow } from '../../db/invoices';
import { termsOf } from '../../db/prices';
import type { PricedItem, SubscriptionRow } from '../../db/subscriptions';
import { periodLines, type BillingReason } from '../../domain/invoices';
import type { TransactionContext } from '../context';
import { writeDraftInvoice } from '../invoices/draft';
import { transitionInvoice } from '../invoices/transition';

export async function billPeriod(ctx: TransactionContext, subscription: SubscriptionRow, items: PricedItem[], period: { start: Date; end: Date }, reason: BillingReason, now: Date): Promise<InvoiceRow> {
  const lines = periodLines(items.map((item) => ({ productName: item.price.product_name, terms: termsOf(item.price), quantity: item.quantity })), period);
  const draft = await writeDraftInvoice(ctx, {
    id: newId('invoice', now.getTime()),
    account_id: subscription.account_id,
    mode: subscription.mode,
    customer_id: subscription.customer_id,
    subscription_id: subscription.id,
    billing_reason: reason,
    period_start: period.start,
    period_end: period.end,
    lines,
    collection_method: subscription.collection_method,
    days_until_due: subscription.days_until_due,
    memo: null,
    created_at: now,
  });
  return transitionInvoice(ctx, draft.id, 'finalize');
}
