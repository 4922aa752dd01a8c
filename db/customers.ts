// Customers: one per email (case-insensitive) per account and mode.
import type { Knex } from 'knex';
import { newId } from '../crypto/ids';
import { sql } from './sql';
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
  credit_balance_cents: string | number;
  test_clock_id: string | null;
  created_at: Date;
}

export interface CustomerDetails {
  email: string;
  name?: string;
  phone?: string;
  locale?: 'en' | 'si' | 'ta';
  /** A test clock the customer lives on (a new customer only: an existing one keeps its own). */
  testClockId?: string;
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
  const [row] = await sql<CustomerRow & { created: boolean }>(
    db,
    `insert into customers (id, account_id, mode, email, name, phone, locale, credit_balance_cents, created_at, updated_at, test_clock_id)
     values ($1, $2, $3, $4, $5, $6, coalesce($7, 'en'), 0, $8, $8, $9)
     on conflict (account_id, mode, lower(email)) do update set
       name = coalesce(excluded.name, customers.name),
       phone = coalesce(excluded.phone, customers.phone),
       locale = coalesce($7, customers.locale),
       updated_at = excluded.updated_at
     returning *, (xmax = 0) as created`,
    [newId('customer', now.getTime()), scope.accountId, scope.mode, details.email, details.name ?? null, details.phone ?? null, details.locale ?? null, now, details.testClockId ?? null],
  );
  if (!row) throw new Error('customer upsert returned no row');
  return { customer: row, created: row.created };
}

/**
 * The customer a card kept at a checkout goes to: a new one, made from the payer's details, when
 * no customer of the mode has the email; the one that has it only when `takeExisting` (the
 * merchant named that customer); otherwise none. One statement for the new one, so two cards kept
 * at once for one email make one customer.
 */
export async function customerForKeptCard(
  trx: Knex.Transaction,
  scope: { accountId: string; mode: Mode },
  details: { email: string; name: string | null; phone: string | null; locale: CustomerRow['locale'] },
  now: Date,
  takeExisting: boolean,
): Promise<CustomerRow | undefined> {
  const [made] = await sql<CustomerRow>(
    trx,
    `insert into customers (id, account_id, mode, email, name, phone, locale, credit_balance_cents, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, 0, $8, $8)
     on conflict (account_id, mode, lower(email)) do nothing
     returning *`,
    [newId('customer', now.getTime()), scope.accountId, scope.mode, details.email, details.name, details.phone, details.locale, now],
  );
  if (made !== undefined || !takeExisting) return made;
  return (await customersQuery(trx, scope, details.email).first()) as CustomerRow;
}

export async function findCustomer(db: Knex | Knex.Transaction, id: string): Promise<CustomerRow> {
  return (await db<CustomerRow>('customers').where({ id }).first()) as CustomerRow;
}

export function customersQuery(db: Knex | Knex.Transaction, scope: { accountId: string; mode: Mode }, email?: string): Knex.QueryBuilder {
  const query = db<CustomerRow>('customers').where({ account_id: scope.accountId, mode: scope.mode });
  return email === undefined ? query : query.whereRaw('lower(email) = lower(?)', [email]);
}

/** The customer's test clock, or null (wall time). */
export async function customerClockId(db: Knex | Knex.Transaction, customerId: string): Promise<string | null> {
  return ((await db('customers').where({ id: customerId }).first('test_clock_id')) as Pick<CustomerRow, 'test_clock_id'>).test_clock_id;
}

const CUSTOMER_TIMES_SQL = `select c.id, c.locale, c.test_clock_id, t.frozen_time,
    exists (select 1 from carried_amounts ca where ca.customer_id = c.id and ca.invoice_id is null) as carries,
    exists (select 1 from invoice_items ii where ii.customer_id = c.id and ii.invoice_id is null) as has_items,
    c.credit_balance_cents::float8 as credit_balance_cents
  from customers c left join test_clocks t on t.id = c.test_clock_id where c.id = any($1::text[])`;

/**
 * A customer's language and test clock, with the clock's time (null on wall time), whether an
 * amount carried over or an invoice item waits for their next invoice (so one made without any
 * asks for none), and their credit balance as read (used under a lock: services/balance/apply.ts).
 */
export type CustomerTime = Pick<CustomerRow, 'locale' | 'test_clock_id'> & { frozen_time: Date | null; carries: boolean; has_items: boolean; credit_balance_cents: number };

/** The customers' times (customerTime), by id: one statement. */
export async function customerTimes(db: Knex | Knex.Transaction, customerIds: readonly string[]): Promise<Map<string, CustomerTime>> {
  const rows = await sql<CustomerTime & { id: string }>(db, CUSTOMER_TIMES_SQL, [customerIds]);
  return new Map(rows.map(({ id, ...time }) => [id, time]));
}

export async function customerTime(db: Knex | Knex.Transaction, customerId: string): Promise<CustomerTime> {
  return (await customerTimes(db, [customerId])).get(customerId)!;
}
