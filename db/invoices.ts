// Invoices and their numbering (migration 016).
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { BillingReason, CollectionMethod, InvoiceLine, InvoiceStatus } from '../domain/invoices';

type Db = Knex | Knex.Transaction;

export interface InvoiceRow {
  id: string;
  account_id: string;
  mode: Mode;
  customer_id: string;
  subscription_id: string | null;
  number: string | null;
  status: InvoiceStatus;
  billing_reason: BillingReason;
  period_start: Date | null;
  period_end: Date | null;
  lines: InvoiceLine[];
  subtotal_cents: string | number;
  discount_cents: string | number;
  tax_cents: string | number;
  total_cents: string | number;
  credit_applied_cents: string | number;
  amount_due_cents: string | number;
  amount_paid_cents: string | number;
  credit_notes_cents: string | number;
  collection_method: CollectionMethod;
  days_until_due: number | null;
  due_date: Date | null;
  memo: string | null;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_failure: string | null;
  finalized_at: Date | null;
  paid_at: Date | null;
  voided_at: Date | null;
  marked_uncollectible_at: Date | null;
  /** The hosted invoice page, from finalisation on. */
  hosted_url: string | null;
  /** The first declined charge: the dunning ladder's retries count from it. */
  first_failed_at: Date | null;
  reminded_at: Date | null;
  overdue_at: Date | null;
  created_at: Date;
}

export async function insertInvoice(db: Db, row: InvoiceRow): Promise<void> {
  await db('invoices').insert({ ...row, lines: JSON.stringify(row.lines) });
}

export async function findInvoice(db: Db, id: string): Promise<InvoiceRow> {
  return (await db('invoices').where({ id }).first()) as InvoiceRow;
}

export async function lockInvoice(db: Db, id: string): Promise<InvoiceRow> {
  return (await db('invoices').where({ id }).forUpdate().first()) as InvoiceRow;
}

export async function updateInvoice(db: Db, id: string, changes: Partial<InvoiceRow>): Promise<InvoiceRow> {
  const [row] = (await db('invoices').where({ id }).update(changes).returning('*')) as InvoiceRow[];
  return row!;
}

/**
 * The account's next invoice number in the mode, taken in `trx`: the counter's row stays locked to
 * the transaction's end, so numbers are given in commit order and a rolled-back one is given again.
 */
export async function takeInvoiceNumber(trx: Knex.Transaction, accountId: string, mode: Mode): Promise<number> {
  const { rows } = (await trx.raw(
    `insert into invoice_numbers (account_id, mode, last_number) values (?, ?, 1)
     on conflict (account_id, mode) do update set last_number = invoice_numbers.last_number + 1
     returning last_number`,
    [accountId, mode],
  )) as { rows: { last_number: number }[] };
  return rows[0]!.last_number;
}

export interface InvoiceFilters {
  customerId?: string;
  subscriptionId?: string;
  status?: InvoiceStatus;
}

/** An account's invoices of one mode, narrowed by the list's filters. */
export function invoicesQuery(db: Db, scope: { accountId: string; mode: Mode }, filters: InvoiceFilters): Knex.QueryBuilder {
  const rows = db('invoices').where({ account_id: scope.accountId, mode: scope.mode });
  if (filters.customerId !== undefined) void rows.where({ customer_id: filters.customerId });
  if (filters.subscriptionId !== undefined) void rows.where({ subscription_id: filters.subscriptionId });
  if (filters.status !== undefined) void rows.where({ status: filters.status });
  return rows;
}

/**
 * Every open invoice whose collection has more to do (the boot-time resumer's), with its
 * customer's clock: charged to the card with an attempt still to make (none yet, or a retry on the
 * ladder), or sent to the customer and not yet overdue.
 */
export async function invoicesBeingCollected(db: Db): Promise<(InvoiceRow & { clock_id: string | null })[]> {
  return (await db('invoices as i')
    .join('customers as c', 'c.id', 'i.customer_id')
    .where('i.status', 'open')
    .whereRaw(
      `((i.collection_method = 'charge_automatically' and (i.attempt_count = 0 or i.next_attempt_at is not null))
        or (i.collection_method = 'send_invoice' and i.overdue_at is null))`,
    )
    .select('i.*', 'c.test_clock_id as clock_id')) as (InvoiceRow & { clock_id: string | null })[];
}
