// The public Invoice object (API answers and invoice.* event payloads).
import type { InvoiceRow } from '../db/invoices';
import { publicLine } from '../domain/invoices';
import { centsFromDb, CURRENCY } from '../domain/money';
import { timestamp } from '../domain/time';

export function invoiceView(row: InvoiceRow) {
  return {
    object: 'invoice' as const,
    id: row.id,
    mode: row.mode,
    number: row.number,
    status: row.status,
    customerId: row.customer_id,
    subscriptionId: row.subscription_id,
    billingReason: row.billing_reason,
    periodStart: timestamp(row.period_start),
    periodEnd: timestamp(row.period_end),
    lines: row.lines.map(publicLine),
    subtotalCents: centsFromDb(row.subtotal_cents),
    discountCents: centsFromDb(row.discount_cents),
    couponId: row.coupon_id,
    taxCents: centsFromDb(row.tax_cents),
    taxes: row.taxes,
    totalCents: centsFromDb(row.total_cents),
    creditAppliedCents: centsFromDb(row.credit_applied_cents),
    amountDueCents: centsFromDb(row.amount_due_cents),
    amountPaidCents: centsFromDb(row.amount_paid_cents),
    creditNotesCents: centsFromDb(row.credit_notes_cents),
    collectionMethod: row.collection_method,
    dueDate: timestamp(row.due_date),
    memo: row.memo,
    currency: CURRENCY,
    attemptCount: row.attempt_count,
    nextAttemptAt: timestamp(row.next_attempt_at),
    lastFailure: row.last_failure,
    paidAt: timestamp(row.paid_at),
    hostedInvoiceUrl: row.hosted_url,
    createdAt: row.created_at.toISOString(),
  };
}
