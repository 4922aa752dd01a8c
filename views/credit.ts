// The public InvoiceItem, CreditNote and BalanceTransaction objects (API answers and the
// credit_note.created payload).
import type { BalanceTransactionRow } from '../db/balance-transactions';
import type { CreditNoteRow } from '../db/credit-notes';
import type { InvoiceItemRow } from '../db/invoice-items';
import { centsFromDb } from '../domain/money';

export function invoiceItemView(row: InvoiceItemRow) {
  return {
    object: 'invoice_item' as const,
    id: row.id,
    mode: row.mode,
    customerId: row.customer_id,
    subscriptionId: row.subscription_id,
    invoiceId: row.invoice_id,
    description: row.description,
    unitAmountCents: centsFromDb(row.unit_amount_cents),
    quantity: row.quantity,
    amountCents: centsFromDb(row.amount_cents),
    discountable: row.discountable,
    createdAt: row.created_at.toISOString(),
  };
}

export function creditNoteView(row: CreditNoteRow) {
  return {
    object: 'credit_note' as const,
    id: row.id,
    mode: row.mode,
    number: row.number,
    invoiceId: row.invoice_id,
    customerId: row.customer_id,
    amountCents: centsFromDb(row.amount_cents),
    refundCents: centsFromDb(row.refund_cents),
    creditCents: centsFromDb(row.credit_cents),
    refundId: row.refund_id,
    reason: row.reason,
    memo: row.memo,
    createdAt: row.created_at.toISOString(),
  };
}

export function balanceTransactionView(row: BalanceTransactionRow) {
  return {
    object: 'balance_transaction' as const,
    id: row.id,
    mode: row.mode,
    customerId: row.customer_id,
    type: row.type,
    amountCents: centsFromDb(row.amount_cents),
    endingBalanceCents: centsFromDb(row.ending_balance_cents),
    invoiceId: row.invoice_id,
    creditNoteId: row.credit_note_id,
    description: row.description,
    createdAt: row.created_at.toISOString(),
  };
}
