// Customers: one per email (case-insensitive) per account and mode.
import type { Knex } from 'knex';
import { newId } from '../domain/ids';
import type { Mode } from '../domain/api-keys';

export interface CustomerRow {
  id: string;
  account_id: string;
  mode: Mode;
  email: string;
  name: string | null;
  phone: string | null;
  locale: 'en' | 'si' | 'ta';
  default_card_id: string | null;
  credit_balance_cents: number;
  created_at: Date;
}

export interface CustomerDetails {
  email: string;
  name?: string;
  phone?: string;
  locale?: 'en' | 'si' | 'ta';
}

/**
 * Creates the customer, or, when the email is already a customer of this mode, fills in the
 * details sent (fields not sent stay as they were). One statement, so two concurrent creates of
 * one email make one customer.
 */
export async function upsertCustomer(
  db: Knex | Knex.Transaction,
  scope: { accountId: string; mode: Mode },
  details: CustomerDetails,
  now: Date,
): Promise<{ customer: CustomerRow; created: boolean }> {
  const result = await db.raw(
    `insert into customers (id, account_id, mode, email, name, phone, locale, credit_balance_cents, created_at, updated_at)
     values (:id, :accountId, :mode, :email, :name, :phone, :locale, 0, :now, :now)
     on conflict (account_id, mode, lower(email)) do update set
       name = coalesce(:nameSent, customers.name),
       phone = coalesce(:phoneSent, customers.phone),
       locale = coalesce(:localeSent, customers.locale),
       updated_at = :now
     returning *, (xmax = 0) as created`,
    {
      id: newId('customer', now.getTime()),
      ...scope,
      email: details.email,
      name: details.name ?? null,
      phone: details.phone ?? null,
      locale: details.locale ?? 'en',
      nameSent: details.name ?? null,
      phoneSent: details.phone ?? null,
      localeSent: details.locale ?? null,
      now,
    },
  );
  const row = result.rows[0] as CustomerRow & { created: boolean };
  return { customer: row, created: row.created };
}

export function customersQuery(db: Knex | Knex.Transaction, scope: { accountId: string; mode: Mode }, email?: string): Knex.QueryBuilder {
  const query = db<CustomerRow>('customers').where({ account_id: scope.accountId, mode: scope.mode });
  return email === undefined ? query : query.whereRaw('lower(email) = lower(?)', [email]);
}

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
    creditBalanceCents: row.credit_balance_cents,
    createdAt: row.created_at.toISOString(),
  };
}
