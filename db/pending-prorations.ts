// Proration lines waiting for a subscription's next period's invoice (migration 023), taken once:
// the update's condition (`invoice_id is null`) is checked again on each row once a concurrent
// taker has committed, so of two invoices made at once only one takes each line.
import type { Knex } from 'knex';
import type { InvoiceLine } from '../domain/invoices';
import { sql } from './sql';

type Db = Knex | Knex.Transaction;

export async function insertPendingProrations(db: Db, subscriptionId: string, lines: readonly InvoiceLine[], now: Date): Promise<void> {
  if (lines.length === 0) return;
  await db('pending_prorations').insert(lines.map((line) => ({ subscription_id: subscriptionId, line: JSON.stringify(line), created_at: now })));
}

/** The subscription's waiting lines, oldest first, now taken by `invoiceId`. */
export async function takePendingProrations(db: Db, subscriptionId: string, invoiceId: string): Promise<InvoiceLine[]> {
  const rows = await sql<{ line: InvoiceLine }>(
    db,
    `with taken as (update pending_prorations set invoice_id = $2 where subscription_id = $1 and invoice_id is null returning id, line)
     select line from taken order by id`,
    [subscriptionId, invoiceId],
  );
  return rows.map((r) => r.line);
}

/** The subscription's waiting lines, oldest first: what its next period's invoice takes (its preview's). */
export async function pendingProrations(db: Db, subscriptionId: string): Promise<InvoiceLine[]> {
  const rows = await sql<{ line: InvoiceLine }>(db, 'select line from pending_prorations where subscription_id = $1 and invoice_id is null order by id', [subscriptionId]);
  return rows.map((r) => r.line);
}
