// Invoice items (migration 032): one-off lines pending for a customer or one of their
// subscriptions, taken once by the next invoice. A subscription's invoice takes the items of that
// subscription and those of the customer tied to none; any other invoice of the customer (one made
// by hand) those tied to none. The update's condition (`invoice_id is null`) is checked again on
// each row once a concurrent taker has committed, so of two invoices made at once only one takes
// each item; a delete is the same conditional write, so an item is deleted or invoiced, never both.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import { sql } from './sql';

type Db = Knex | Knex.Transaction;

export interface InvoiceItemRow {
  id: string;
  account_id: string;
  mode: Mode;
  customer_id: string;
  subscription_id: string | null;
  /** The invoice that took it as a line; null while pending. */
  invoice_id: string | null;
  description: string;
  unit_amount_cents: string | number;
  quantity: number;
  amount_cents: string | number;
  discountable: boolean;
  created_at: Date;
}

export async function insertInvoiceItem(db: Db, row: InvoiceItemRow): Promise<void> {
  await db('invoice_items').insert(row);
}

// $1 customer, $2 subscription (null: an invoice of no subscription takes only items of none).
const PENDING = `customer_id = $1 and invoice_id is null and (subscription_id is null or subscription_id = $2)`;

/** The customer's pending items an invoice of `subscriptionId` (or of none) takes, oldest first, now taken by `invoiceId`. */
export function takeInvoiceItems(db: Db, customerId: string, subscriptionId: string | null, invoiceId: string): Promise<InvoiceItemRow[]> {
  return sql<InvoiceItemRow>(db, `with taken as (update invoice_items set invoice_id = $3 where ${PENDING} returning *) select * from taken order by id`, [customerId, subscriptionId, invoiceId]);
}

/** The items the customer's next invoice of `subscriptionId` (or of none) would take, oldest first (its preview's). */
export function pendingInvoiceItems(db: Db, customerId: string, subscriptionId: string | null): Promise<InvoiceItemRow[]> {
  return sql<InvoiceItemRow>(db, `select * from invoice_items where ${PENDING} order by id`, [customerId, subscriptionId]);
}

/** The item deleted while pending: its row; undefined when an invoice has taken it. */
export async function deletePendingInvoiceItem(db: Db, id: string): Promise<InvoiceItemRow | undefined> {
  const [row] = await sql<InvoiceItemRow>(db, 'delete from invoice_items where id = $1 and invoice_id is null returning *', [id]);
  return row;
}

export interface InvoiceItemFilters {
  customerId?: string;
  subscriptionId?: string;
  pending?: boolean;
}

/** An account's invoice items of one mode, narrowed by the list's filters. */
export function invoiceItemsQuery(db: Db, scope: { accountId: string; mode: Mode }, filters: InvoiceItemFilters): Knex.QueryBuilder {
  const rows = db('invoice_items').where({ account_id: scope.accountId, mode: scope.mode });
  if (filters.customerId !== undefined) void rows.where({ customer_id: filters.customerId });
  if (filters.subscriptionId !== undefined) void rows.where({ subscription_id: filters.subscriptionId });
  if (filters.pending === true) void rows.whereNull('invoice_id');
  if (filters.pending === false) void rows.whereNotNull('invoice_id');
  return rows;
}
