// A new draft invoice, by hand or for a subscription's period: its amounts from its lines and
// adjustments (domain/invoice-arithmetic.ts), nothing paid or attempted yet; written with
// invoice.created in the caller's transaction.
import { insertInvoice, type InvoiceRow } from '../../db/invoices';
import { recordEvent } from '../../db/events';
import { invoiceAmounts, type InvoiceAdjustments } from '../../domain/invoice-arithmetic';
import { invoiceView } from '../../views/invoice';
import type { TransactionContext } from '../context';

export type DraftInput = Pick<
  InvoiceRow,
  'id' | 'account_id' | 'mode' | 'customer_id' | 'subscription_id' | 'billing_reason' | 'period_start' | 'period_end' | 'lines' | 'collection_method' | 'days_until_due' | 'memo' | 'created_at'
>;

/** A draft's row: its amounts from its lines and adjustments, nothing paid or attempted (a preview is one, not stored). */
export function draftRow(input: DraftInput, adjustments?: InvoiceAdjustments): InvoiceRow {
  const totals = invoiceAmounts(input.lines, adjustments);
  return {
    ...input,
    number: null,
    status: 'draft',
    subtotal_cents: totals.subtotalCents,
    discount_cents: totals.discountCents,
    tax_cents: totals.taxCents,
    total_cents: totals.totalCents,
    credit_applied_cents: totals.creditAppliedCents,
    amount_due_cents: totals.amountDueCents,
    amount_paid_cents: 0,
    credit_notes_cents: totals.creditNotesCents,
    coupon_id: totals.couponId,
    taxes: totals.taxes,
    due_date: null,
    attempt_count: 0,
    next_attempt_at: null,
    last_failure: null,
    finalized_at: null,
    paid_at: null,
    voided_at: null,
    marked_uncollectible_at: null,
    hosted_url: null,
    first_failed_at: null,
    reminded_at: null,
    overdue_at: null,
  };
}

export async function writeDraftInvoice(ctx: TransactionContext, input: DraftInput, adjustments?: InvoiceAdjustments): Promise<InvoiceRow> {
  const row = draftRow(input, adjustments);
  await insertInvoice(ctx.db, row);
  await recordEvent(ctx.db, { accountId: row.account_id, mode: row.mode, type: 'invoice.created', data: invoiceView(row), now: row.created_at });
  return row;
}
