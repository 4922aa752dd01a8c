// A customer's credit balance (customers.credit_balance_cents) and its transactions (migration
// 032): every change of the balance takes the customer's row lock, then updates the row and writes
// the transaction with the balance it left, its id made to sort after the customer's latest
// transaction (an id made before the lock may not), so the transactions listed by id are in the
// order the balance moved and `endingBalanceCents` of the newest is always the customer's
// `creditBalanceCents`, whatever runs at once.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { BalanceTransactionType } from '../domain/credit';
import { newId } from '../crypto/ids';
import { sql } from './sql';

type Db = Knex | Knex.Transaction;

export interface BalanceTransactionRow {
  id: string;
  account_id: string;
  mode: Mode;
  customer_id: string;
  type: BalanceTransactionType;
  amount_cents: string | number;
  ending_balance_cents: string | number;
  invoice_id: string | null;
  credit_note_id: string | null;
  description: string | null;
  created_at: Date;
}

export type NewBalanceTransaction = Omit<BalanceTransactionRow, 'ending_balance_cents'>;

const ADD_SQL = `with balance as (
    update customers set credit_balance_cents = credit_balance_cents + $7::bigint where id = $4 returning credit_balance_cents
  )
  insert into balance_transactions (id, account_id, mode, customer_id, type, invoice_id, amount_cents, ending_balance_cents, credit_note_id, description, created_at)
  select $1, $2, $3, $4, $5, $6, $7::bigint, balance.credit_balance_cents, $8, $9, $10 from balance
  returning *`;

/**
 * `proposed` (made before the lock), or, when a transaction of the customer's that took the lock
 * first sorts after it, an id made after that one: at its millisecond (later in it, when this
 * process made it), else the next.
 */
function idAfter(proposed: string, last: string | null): string {
  if (last === null || proposed > last) return proposed;
  const at = last.indexOf('_') + 1;
  const lastMillis = parseInt(last.slice(at, at + 9), 36);
  const same = newId('balanceTransaction', lastMillis);
  return same > last ? same : newId('balanceTransaction', lastMillis + 1);
}

/** The transaction written and the customer's balance moved by its amount, under the customer's row lock: the row written. */
export async function addBalanceTransaction(db: Db, t: NewBalanceTransaction): Promise<BalanceTransactionRow> {
  if ((await sql(db, 'select 1 from customers where id = $1 for update', [t.customer_id])).length === 0) throw new Error(`customer ${t.customer_id} not found`);
  // Read after the lock, in a statement of its own: it sees a transaction committed while this waited.
  const [last] = await sql<{ id: string }>(db, 'select id from balance_transactions where customer_id = $1 order by id desc limit 1', [t.customer_id]);
  const [row] = await sql<BalanceTransactionRow>(db, ADD_SQL, [idAfter(t.id, last?.id ?? null), t.account_id, t.mode, t.customer_id, t.type, t.invoice_id, t.amount_cents, t.credit_note_id, t.description, t.created_at]);
  return row!;
}

/** The customer's balance, its row locked to the transaction's end (what an invoice finalised now may use). */
export async function lockCreditBalance(trx: Knex.Transaction, customerId: string): Promise<number> {
  const [row] = await sql<{ credit_balance_cents: string }>(trx, 'select credit_balance_cents from customers where id = $1 for update', [customerId]);
  return Number(row!.credit_balance_cents);
}

/** A customer's balance transactions. */
export function balanceTransactionsQuery(db: Db, customerId: string): Knex.QueryBuilder {
  return db('balance_transactions').where({ customer_id: customerId });
}
