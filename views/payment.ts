// The public Payment object (API answers and the payment.* event payloads alike).
import type { PaymentRow } from '../db/payments';
import { centsFromDb, CURRENCY } from '../domain/money';
import { timestamp } from '../domain/time';

export function paymentView(row: PaymentRow) {
  return {
    object: 'payment' as const,
    id: row.id,
    mode: row.mode,
    status: row.status,
    amountCents: centsFromDb(row.amount_cents),
    currency: CURRENCY,
    description: row.description,
    reference: row.reference,
    customer: row.customer_email === null ? null : { name: row.customer_name, email: row.customer_email, phone: row.customer_phone },
    card: row.card_scheme === null ? null : { scheme: row.card_scheme, last4: row.card_last4 as string },
    cardSave: row.card_save,
    feeCents: row.fee_cents === null ? null : centsFromDb(row.fee_cents),
    netCents: row.net_cents === null ? null : centsFromDb(row.net_cents),
    refundedCents: centsFromDb(row.refunded_cents),
    failureMessage: row.failure_message,
    paymentLinkId: row.payment_link_id,
    savedCardId: row.saved_card_id,
    invoiceId: row.invoice_id,
    checkoutId: row.checkout_id,
    checkoutPageId: row.checkout_page_id,
    order: row.order,
    delivery: null,
    customFields: null,
    customerTaxId: null,
    termsAcceptedAt: null,
    createdAt: row.created_at.toISOString(),
    succeededAt: timestamp(row.succeeded_at),
  };
}
export type PaymentView = ReturnType<typeof paymentView>;
