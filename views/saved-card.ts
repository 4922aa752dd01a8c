// The public Saved card object (API answers, and the card.saved and card.expiring payloads).
import type { SavedCardRow } from '../db/saved-cards';
import { timestamp } from '../domain/time';

export function savedCardView(row: SavedCardRow) {
  return {
    object: 'saved_card' as const,
    id: row.id,
    mode: row.mode,
    customerEmail: row.customer_email,
    scheme: row.scheme,
    last4: row.last4,
    expiry: { month: row.expiry_month, year: row.expiry_year },
    paymentId: row.payment_id,
    consent: { agreedAt: row.consent_at.toISOString(), locale: row.consent_locale, wording: row.consent_wording },
    active: row.retired_at === null,
    createdAt: row.created_at.toISOString(),
    retiredAt: timestamp(row.retired_at),
  };
}
