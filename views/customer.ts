// The public Customer object.
import type { CustomerRow } from '../db/customers';
import { centsFromDb } from '../domain/money';

export function customerView(row: CustomerRow) {
  return {
    object: 'customer' as const,
    id: row.id,
    mode: row.mode,
    email: row.email,
    name: row.name,
    phone: row.phone,
    locale: row.locale,
    defaultCardId: row.default_card_id,
    creditBalanceCents: centsFromDb(row.credit_balance_cents),
    testClockId: row.test_clock_id,
    createdAt: row.created_at.toISOString(),
  };
}
