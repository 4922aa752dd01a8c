// An invoice for a period of a subscription: its lines from the items' prices
// (domain/invoices.ts periodLines), made and finalised in the subscription's transaction, in the
// customer's time. Used when a subscription starts and at each renewal.
import { newId } from '../../crypto/ids';
import { insertInvoice, type InvoiceRow } from '../../db/invoices';
import { termsOf } from '../../db/prices';
import type { PricedItem, SubscriptionRow } from '../../db/subscriptions';
import { recordEvent } from '../../db/events';
import { invoiceTotals, periodLines, type BillingReason } from '../../domain/invoices';
import { invoiceView } from '../../views/invoice';
import type { TransactionContext } from '../context';
import { transitionInvoice } from '../invoices/transition';

export async function billPeriod(ctx: TransactionContext, subscription: SubscriptionRow, items: PricedItem[], period: { start: Date; end: Date }, reason: BillingReason, now: Date): Promise<InvoiceRow> {
  const lines = periodLines(items.map((item) => ({ productName: item.price.product_name, terms: termsOf(item.price), quantity: item.quantity })), period);
  const totals = invoiceTotals(lines);
  const draft: InvoiceRow = {
    id: newId('invoice', now.getTime()),
    account_id: subscription.account_id,
    mode: subscription.mode,
    customer_id: subscription.customer_id,
    subscription_id: subscription.id,
    number: null,
    status: 'draft',
    billing_reason: reason,
    period_start: period.start,
    period_end: period.end,
    lines,
    subtotal_cents: totals.subtotalCents,
    discount_cents: totals.discountCents,
    tax_cents: totals.taxCents,
    total_cents: totals.totalCents,
    credit_applied_cents: totals.creditAppliedCents,
    amount_due_cents: totals.amountDueCents,
    amount_paid_cents: 0,
    credit_notes_cents: 0,
    collection_method: subscription.collection_method,
    days_until_due: subscription.days_until_due,
    due_date: null,
    memo: null,
    attempt_count: 0,
    next_attempt_at: null,
    last_failure: null,
    finalized_at: null,
    paid_at: null,
    voided_at: null,
    marked_uncollectible_at: null,
    created_at: now,
  };
  await insertInvoice(ctx.db, draft);
  await recordEvent(ctx.db, { accountId: draft.account_id, mode: draft.mode, type: 'invoice.created', data: invoiceView(draft), now });
  return transitionInvoice(ctx, draft.id, 'finalize');
}
