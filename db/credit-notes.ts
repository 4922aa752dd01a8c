// Credit notes (migration 032), numbered CN-000001 upward per account and mode: the counter's row
// (credit_note_numbers) is taken in the statement that writes the note and stays locked to the
// transaction's end, so numbers are given in commit order without gaps, as invoice numbers are.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import { CREDIT_NOTE_NUMBER_FORM } from '../domain/credit';
import { sql } from './sql';

type Db = Knex | Knex.Transaction;

export interface CreditNoteRow {
  id: string;
  account_id: string;
  mode: Mode;
  number: string;
  invoice_id: string;
  customer_id: string;
  amount_cents: string | number;
  refund_cents: string | number;
  credit_cents: string | number;
  refund_id: string | null;
  reason: string | null;
  memo: string | null;
  created_at: Date;
}

const { prefix, digits } = CREDIT_NOTE_NUMBER_FORM;

const INSERT_NUMBERED_SQL = `with numbered as (
    insert into credit_note_numbers (account_id, mode, last_number) values ($2, $3, 1)
    on conflict (account_id, mode) do update set last_number = credit_note_numbers.last_number + 1
    returning '${prefix}' || lpad(last_number::text, greatest(${digits}, length(last_number::text)), '0') as number
  )
  insert into credit_notes (id, account_id, mode, number, invoice_id, customer_id, amount_cents, refund_cents, credit_cents, refund_id, reason, memo, created_at)
  select $1, $2, $3, numbered.number, $4, $5, $6, $7, $8, $9, $10, $11, $12 from numbered
  returning *`;

/** The note written with the account's next number in its mode: the row as written. */
export async function insertNumberedCreditNote(trx: Knex.Transaction, note: Omit<CreditNoteRow, 'number'>): Promise<CreditNoteRow> {
  const [row] = await sql<CreditNoteRow>(trx, INSERT_NUMBERED_SQL, [
    note.id, note.account_id, note.mode, note.invoice_id, note.customer_id, note.amount_cents, note.refund_cents, note.credit_cents, note.refund_id, note.reason, note.memo, note.created_at,
  ]);
  return row!;
}

export interface CreditNoteFilters {
  invoiceId?: string;
  customerId?: string;
}

/** An account's credit notes of one mode, narrowed by the list's filters. */
export function creditNotesQuery(db: Db, scope: { accountId: string; mode: Mode }, filters: CreditNoteFilters): Knex.QueryBuilder {
  const rows = db('credit_notes').where({ account_id: scope.accountId, mode: scope.mode });
  if (filters.invoiceId !== undefined) void rows.where({ invoice_id: filters.invoiceId });
  if (filters.customerId !== undefined) void rows.where({ customer_id: filters.customerId });
  return rows;
}

/**
 * What refunds of the invoice's payment made outside its credit notes (POST /v1/refunds) gave back,
 * failed ones aside: read with the payment's row locked, so no such refund is opened meanwhile.
 */
export async function refundedOutsideCreditNotes(db: Db, invoice: { account_id: string; mode: Mode; id: string }, paymentId: string): Promise<number> {
  const [row] = await sql<{ cents: string }>(
    db,
    `select coalesce(sum(r.amount_cents), 0) as cents from refunds r
      where r.account_id = $1 and r.mode = $2 and r.payment_id = $3 and r.status <> 'failed'
        and r.id not in (select c.refund_id from credit_notes c where c.account_id = $1 and c.mode = $2 and c.invoice_id = $4 and c.refund_id is not null)`,
    [invoice.account_id, invoice.mode, paymentId, invoice.id],
  );
  return Number(row!.cents);
}
