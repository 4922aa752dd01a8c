// An invoice's charges to the card on file (services/invoices/collect.ts), each step in as few
// statements as it can be: the card it is charged to, the invoice as its collection reads it (with
// its customer's clock time, the attempt's payment, the card and the account's plan), the write of
// an attempt's payment, and a change of the invoice with its event.
import type { Knex } from 'knex';
import type { NewEmailRow } from './emails';
import { changeRecordingEvent, type NewEvent } from './events';
import type { InvoiceRow } from './invoices';
import { MONTHLY_USAGE_SQL, monthlyUsageParams } from './monthly-usage';
import type { PaymentRow } from './payments';
import type { SavedCardRow } from './saved-cards';
import { simpleQuery, sql } from './sql';

type Db = Knex | Knex.Transaction;

/**
 * The card charged for a customer's subscription (SQL expressions of their ids): the
 * subscription's, else the customer's default; none when it is retired or the processor holds no
 * token for it.
 */
function chargedCardSql(customer: string, subscription: string): string {
  return `select c.* from customers cu left join subscriptions s on s.id = ${subscription}
    join saved_cards c on c.id = coalesce(s.card_id, cu.default_card_id)
    where cu.id = ${customer} and c.retired_at is null and c.processor_token is not null`;
}

const CHARGED_CARD_SQL = chargedCardSql('$1', '$2');

export async function chargedCard(db: Db, customerId: string, subscriptionId: string | null): Promise<SavedCardRow | null> {
  const [card] = await sql<SavedCardRow>(db, CHARGED_CARD_SQL, [customerId, subscriptionId]);
  return card ?? null;
}

/** What a charge's payment copies of its card (which comes as JSON: its times are left out). */
export type ChargedCard = Pick<SavedCardRow, 'id' | 'account_id' | 'mode' | 'customer_email' | 'scheme' | 'last4' | 'expiry_month' | 'expiry_year' | 'processor_token'>;

/** An invoice as its collection reads it for one attempt. */
export interface InvoiceToCollect {
  invoice: InvoiceRow;
  /** Its customer's test clock's time; null off a clock. */
  clockTime: Date | null;
  /** The attempt's payment, once written. */
  payment: Pick<PaymentRow, 'id' | 'status' | 'failure_message'> | null;
  /** The card the attempt charges; null when none can be. */
  card: ChargedCard | null;
  /** The account's plan (the monthly limit's notices). */
  plan: string;
}

const invoiceToCollectSql = (lock: string) => `select i.*, t.frozen_time as clock_time, p.id as payment_id, p.status as payment_status,
    p.failure_message as payment_failure, row_to_json(c) as card, a.plan as account_plan
  from invoices i join accounts a on a.id = i.account_id join customers cu on cu.id = i.customer_id
    left join test_clocks t on t.id = cu.test_clock_id
    left join payments p on p.invoice_id = i.id and p.invoice_attempt = $2
    left join lateral (${chargedCardSql('i.customer_id', 'i.subscription_id')}) c on true
  where i.id = $1 ${lock}`;
const INVOICE_TO_COLLECT_SQL = invoiceToCollectSql('');
const LOCK_INVOICE_TO_COLLECT_SQL = invoiceToCollectSql('for update of i');

/** The invoice with what attempt `attempt` (null: none) needs, in one statement; locked for `db`'s transaction when `lock`. */
export async function invoiceToCollect(db: Db, invoiceId: string, attempt: number | null, lock = false): Promise<InvoiceToCollect> {
  type Read = InvoiceRow & { clock_time: Date | null; payment_id: string | null; payment_status: PaymentRow['status'] | null; payment_failure: string | null; card: ChargedCard | null; account_plan: string };
  const [row] = await sql<Read>(db, lock ? LOCK_INVOICE_TO_COLLECT_SQL : INVOICE_TO_COLLECT_SQL, [invoiceId, attempt]);
  if (!row) throw new Error(`invoice ${invoiceId} not found`);
  const { clock_time: clockTime, payment_id: id, payment_status: status, payment_failure: failure, card, account_plan: plan, ...invoice } = row;
  return { invoice, clockTime, payment: id === null ? null : { id, status: status!, failure_message: failure }, card, plan };
}

/**
 * Writes the attempt's payment while its invoice is open with the attempt still to make (the
 * invoice held for update to the end), unless it was written before (payments_invoice_attempt),
 * then reads the attempt's payment and the month's use in a second statement of the same simple
 * query: the payments' trigger (migration 015) took the account's processing_usage row in the
 * insert, so that read counts every charge before this one and this one, and the row is held
 * inside PostgreSQL only, until the implicit commit. $1 to $4 are MONTHLY_USAGE_SQL's.
 */
function writeChargeSql(columns: readonly string[]): string {
  return `with open as (select 1 from invoices where id = $5 and status = 'open' and attempt_count < $6 for update)
    insert into payments (${columns.map((column) => `"${column}"`).join(', ')})
    select ${columns.map((_, i) => `$${i + 7}`).join(', ')} from open
    on conflict (invoice_id, invoice_attempt) where invoice_attempt is not null do nothing
    returning 1;
  select (select id from payments where invoice_id = $5 and invoice_attempt = $6) as payment_id, usage.used from (${MONTHLY_USAGE_SQL}) usage`;
}

/**
 * The attempt's payment (of an invoice, its attempt set) and, when this call wrote it, the month's
 * use it brings the account to (its month the one of `usageAt`); null when there is none, the
 * invoice having moved on (paid, voided, the attempt applied) since it was read.
 */
export async function writeInvoiceCharge(db: Knex, payment: PaymentRow, card: ChargedCard, usageAt: Date): Promise<{ paymentId: string; usedCents: number | null } | null> {
  const row: Record<string, unknown> = {
    ...payment,
    order: payment.order === null ? null : JSON.stringify(payment.order),
    card_expiry_month: card.expiry_month,
    card_expiry_year: card.expiry_year,
    card_token: card.processor_token,
  };
  const columns = Object.keys(row);
  const [inserted, [read]] = (await simpleQuery(db, writeChargeSql(columns), [
    ...monthlyUsageParams(payment.account_id, payment.mode, usageAt),
    payment.invoice_id,
    payment.invoice_attempt,
    ...columns.map((column) => row[column]),
  ])) as [unknown[], { payment_id: string | null; used: string | number }[]];
  const { payment_id: paymentId, used } = read!;
  if (paymentId === null) return null;
  return { paymentId, usedCents: inserted.length === 1 ? Number(used) : null };
}

/** Invoice columns an invoice's collection changes (its lines, kept as JSON, are not among them). */
export type InvoiceChanges = Partial<Omit<InvoiceRow, 'lines'>>;

/**
 * Changes the invoice and records `event` (and keeps `email`, if given) in the same statement
 * (db/events.ts changeRecordingEvent). The changed row.
 */
export async function changeInvoiceRecordingEvent(db: Db, invoiceId: string, changes: InvoiceChanges, event: NewEvent, email?: NewEmailRow): Promise<InvoiceRow> {
  const columns = Object.keys(changes) as (keyof InvoiceChanges)[];
  const change = `update invoices set ${columns.map((column, i) => `"${column}" = $${i + 2}`).join(', ')} where id = $1 returning *`;
  const changed = await changeRecordingEvent<InvoiceRow>(db, change, [invoiceId, ...columns.map((column) => changes[column])], event, email);
  if (changed === undefined) throw new Error(`invoice ${invoiceId} not found`);
  return changed;
}
