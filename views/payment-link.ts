// The public PaymentLink object, with how many payments the link took.
import type { CountedPaymentLinkRow } from '../db/payment-links';
import { centsFromDb, CURRENCY } from '../domain/money';
import { timestamp } from '../domain/time';

export function paymentLinkView(row: CountedPaymentLinkRow) {
  return {
    object: 'payment_link' as const,
    id: row.id,
    mode: row.mode,
    active: row.active,
    url: row.url,
    amountCents: centsFromDb(row.amount_cents),
    currency: CURRENCY,
    description: row.description,
    lineItems: row.line_items,
    locale: row.locale,
    reference: row.reference,
    successUrl: row.success_url,
    saveCard: row.save_card,
    paymentCount: row.payment_count,
    createdAt: row.created_at.toISOString(),
    deactivatedAt: timestamp(row.deactivated_at),
  };
}
