// A customer's credit balance (customers.credit_balance_cents) and its transactions (migration
// 032): every change of the balance is one statement that updates the customer's row (taking its
// lock) and writes the transaction with the balance it left, so `endingBalanceCents` of the latest
// is always the customer's `creditBalanceCents`, whatever runs at once.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { BalanceTransactionType } from '../domain/credit';
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

/** The transaction written and the customer's balance moved by its amount, under the customer's row lock: the row written. */
export async function addBalanceTransaction(db: Db, t: NewBalanceTransaction): Promise<BalanceTransactionRow> {
  const [row] = await sql<BalanceTransactionRow>(db, ADD_SQL, [t.id, t.account_id, t.mode, t.customer_id, t.type, t.invoice_id, t.amount_cents, t.credit_note_id, t.description, t.created_at]);
  if (row === undefined) throw new Error(`customer ${t.customer_id} not found`);
  return row;
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
