// Whether an invoice was paid by carrying its amount (1 to 999 cents, below a card payment's
// minimum) onto the customer's next invoice: for invariants over every invoice ("an invoice is paid
// if and only if a payment paid it, its amount due was 0, or it was carried over").
import type { Knex } from 'knex';

/**
 * SQL true when the invoice aliased `invoice` was paid by carry-over: its amount is kept in
 * carried_amounts (migration 021) with it as the source. Its `amountPaidCents` is that amount; no
 * payment of it exists. (A total below zero goes to the customer's credit balance instead:
 * migration 032 moved the credits carried before it there.)
 */
export const PAID_BY_CARRY_OVER_SQL = (invoice = 'i') => `exists (select 1 from carried_amounts ca where ca.source_invoice_id = ${invoice}.id)`;

export async function paidByCarryOver(db: Knex, invoiceId: string): Promise<boolean> {
  const [row] = await db('invoices as i').where('i.id', invoiceId).select(db.raw(`${PAID_BY_CARRY_OVER_SQL('i')} as carried`));
  return row?.carried === true;
}
