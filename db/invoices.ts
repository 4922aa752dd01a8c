// Invoices and their numbering (migration 016).
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { InvoiceTax } from '../domain/invoice-arithmetic';
import { INVOICE_NUMBER_FORM, type BillingReason, type CollectionMethod, type InvoiceLine, type InvoiceStatus } from '../domain/invoices';
import { eventArrays, insertEventsSql, NOTIFY_IF_UNDISPATCHED, type EventRow } from './events';
import { sql, type Statement } from './sql';

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
  /** The coupon whose discount it carries, and its taxes (migration 026). */
  coupon_id: string | null;
  taxes: InvoiceTax[];
  collection_method: CollectionMethod;
  days_until_due: number | null;
  due_date: Date | null;
  memo: string | null;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_failure: string | null;
  finalized_at: Date | null;
  paid_at: Date | null;
  /** The payment that paid it; null while unpaid, and when nothing was charged (migration 020). */
  paid_payment_id?: string | null;
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
  await db('invoices').insert({ ...row, lines: JSON.stringify(row.lines), taxes: JSON.stringify(row.taxes) });
}

export async function findInvoice(db: Db, id: string): Promise<InvoiceRow> {
  return (await db('invoices').where({ id }).first()) as InvoiceRow;
}

export async function lockInvoice(db: Db, id: string): Promise<InvoiceRow> {
  const [row] = await sql<InvoiceRow>(db, 'select * from invoices where id = $1 for update', [id]);
  return row!;
}

/**
 * The subscriptions' draft and open invoices locked, in id order, before the subscriptions are: the
 * order an invoice's payment takes them in (the invoice, then its subscription), so a cancel or a
 * step that ends a subscription (voiding its invoices) and a payment applied at once do not deadlock.
 */
export async function lockOpenInvoicesOf(db: Db, subscriptionIds: readonly string[]): Promise<void> {
  await sql(db, `select id from invoices where subscription_id = any($1::text[]) and status in ('draft', 'open') order by id for update`, [subscriptionIds]);
}

/**
 * The invoices the subscriptions' changes wait for (`pendingUpdate`), locked in id order before the
 * subscriptions are, as a payment of one takes them: a renewal drops such a change and voids its invoice.
 */
export async function lockAwaitedInvoicesOf(db: Db, subscriptionIds: readonly string[]): Promise<void> {
  await sql(
    db,
    `select id from invoices where id in (select pending_update->>'invoiceId' from subscriptions where id = any($1::text[]) and pending_update is not null) order by id for update`,
    [subscriptionIds],
  );
}

export async function updateInvoice(db: Db, id: string, changes: Partial<InvoiceRow>): Promise<InvoiceRow> {
  const [row] = (await db('invoices').where({ id }).update(changes).returning('*')) as InvoiceRow[];
  return row!;
}

/** Stands for an invoice's number in the data of events written with it (writeNumberedInvoice), where it is not known yet. */
export const NUMBER_MARK = '\u0000the invoice number';

const { prefix, digits } = INVOICE_NUMBER_FORM;

/** The account's next invoice number in its mode as the CTE `numbered(number)`, from $1 account and $2 mode. */
const NUMBERED_SQL = `numbered as (
    insert into invoice_numbers (account_id, mode, last_number) values ($1, $2, 1)
    on conflict (account_id, mode) do update set last_number = invoice_numbers.last_number + 1
    returning '${prefix}' || lpad(last_number::text, greatest(${digits}, length(last_number::text)), '0') as number
  )`;

function invoiceValue(column: string, value: unknown): unknown {
  return column === 'lines' || column === 'taxes' ? JSON.stringify(value) : value;
}

/**
 * The statement that finalises an invoice with the account's next number in its mode: `write`
 * inserts it (a new one, `number` left null) or updates a draft written before with `changes`, and
 * `events` (their data may hold NUMBER_MARK for the number) are recorded, all in one statement. The
 * counter's row stays locked to the transaction's end, so numbers are given in commit order with
 * no gaps (a rolled-back one is given again): run it as late in the transaction as can be, the lock
 * held for as little as that, or with the COMMIT (services/context.ts atCommit), held inside
 * PostgreSQL only. Its one row is the invoice as written.
 */
export function numberedInvoiceStatement(write: { insert: InvoiceRow } | { draft: InvoiceRow; changes: Partial<InvoiceRow> }, events: readonly EventRow[]): Statement {
  const invoice = 'insert' in write ? write.insert : write.draft;
  const row = 'insert' in write ? write.insert : write.changes;
  const columns = Object.keys(row).filter((c) => c !== 'number');
  const values: unknown[] = [invoice.account_id, invoice.mode, ...columns.map((c) => invoiceValue(c, row[c as keyof InvoiceRow]))];
  const param = (i: number) => `$${i + 3}`;
  let written: string;
  if ('insert' in write) {
    written = `insert into invoices (number, ${columns.map((c) => `"${c}"`).join(', ')})
      values ((select number from numbered), ${columns.map((_, i) => param(i)).join(', ')}) returning *`;
  } else {
    values.push(invoice.id);
    written = `update invoices set number = (select number from numbered), ${columns.map((c, i) => `"${c}" = ${param(i)}`).join(', ')}
      where id = $${values.length} returning *`;
  }
  values.push(JSON.stringify(NUMBER_MARK));
  const mark = `$${values.length}`;
  const text = `with ${NUMBERED_SQL}, written as (${written}),
    recorded as (${insertEventsSql(values.length + 1, { from: 'written', data: (json) => `replace(${json}, ${mark}, to_json(written.number)::text)` })})
    select written.*, ${NOTIFY_IF_UNDISPATCHED} as notified from written`;
  return { text, values: [...values, ...eventArrays(events)], contended: true };
}

/** Runs numberedInvoiceStatement now: the invoice as written. */
export async function writeNumberedInvoice(trx: Knex.Transaction, statement: Statement): Promise<InvoiceRow> {
  const [numbered] = await sql<InvoiceRow & { notified?: unknown }>(trx, statement.text, [...statement.values]);
  if (numbered === undefined) throw new Error('no invoice was written');
  delete numbered.notified;
  return numbered;
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
