// Amounts carried over to a customer's next invoice (migration 021): kept when an invoice of 1 to
// 999 cents is paid by carrying it, taken once by the next invoice made for the customer.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import { sql } from './sql';

type Db = Knex | Knex.Transaction;

export interface CarriedAmountRow {
  source_invoice_id: string;
  account_id: string;
  mode: Mode;
  customer_id: string;
  subscription_id: string | null;
  amount_cents: string | number;
  /** The invoice that took it as a line; null while pending. */
  invoice_id: string | null;
  created_at: Date;
}

/** A carried amount as a line needs it: its source invoice's number and the amount. */
export interface CarriedAmount {
  source_number: string;
  amount_cents: string | number;
}

export async function insertCarriedAmount(db: Db, row: CarriedAmountRow): Promise<void> {
  await db('carried_amounts').insert(row);
}

/**
 * The customer's pending amounts, taken by `invoiceId`, oldest first. The update's condition
 * (`invoice_id is null`) is checked again on each row once a concurrent taker has committed, so of
 * two invoices made at once for the customer only one takes each amount; one rolled back leaves
 * them pending.
 */
export function takeCarriedAmounts(db: Db, customerId: string, invoiceId: string): Promise<CarriedAmount[]> {
  return sql<CarriedAmount>(
    db,
    `with taken as (update carried_amounts set invoice_id = $2 where customer_id = $1 and invoice_id is null
       returning source_invoice_id, amount_cents, created_at)
     select i.number as source_number, taken.amount_cents from taken join invoices i on i.id = taken.source_invoice_id
     order by taken.created_at, taken.source_invoice_id`,
    [customerId, invoiceId],
  );
}

/** The customer's pending amounts, oldest first: what their next invoice will take (its preview's). */
export function pendingCarriedAmounts(db: Db, customerId: string): Promise<CarriedAmount[]> {
  return sql<CarriedAmount>(
    db,
    `select i.number as source_number, c.amount_cents from carried_amounts c join invoices i on i.id = c.source_invoice_id
     where c.customer_id = $1 and c.invoice_id is null order by c.created_at, c.source_invoice_id`,
    [customerId],
  );
}
