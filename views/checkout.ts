// The public Checkout object, with its payment (API answers and the checkout.* event payloads).
import type { CheckoutRow } from '../db/checkouts';
import type { PaymentRow } from '../db/payments';
import { paymentView } from './payment';

export function checkoutView(row: CheckoutRow, payment: PaymentRow) {
  return {
    object: 'checkout' as const,
    id: row.id,
    mode: row.mode,
    status: row.status,
    url: row.url,
    locale: row.locale,
    successUrl: row.success_url,
    cancelUrl: row.cancel_url,
    saveCard: row.save_card,
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    payment: paymentView(payment),
  };
}
