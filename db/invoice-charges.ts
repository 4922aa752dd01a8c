// An invoice's charges to the card on file (services/invoices/collect.ts), each step in as few
// statements as it can be: the card it is charged to, the invoice as its collection reads it (with
// its customer's clock time, the attempt's payment, the card and the account's plan), the write of
// an attempt's payment, and a change of the invoice with its event.
import type { Knex } from 'knex';
import type { NewEmailRow } from './emails';
import { changedRow, changeRecordingEventStatement, type NewEvent } from './events';
import type { InvoiceRow } from './invoices';
import { MONTHLY_USAGE_SQL, monthlyUsageParams } from './monthly-usage';
import type { PaymentRow } from './payments';
import type { SavedCardRow } from './saved-cards';
import { runStatements, sql, updateByIdStatement, type Statement } from './sql';

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
  /**
   * Another payment of it (one on its page, another attempt) is with the processor, as the
   * statement's snapshot saw it: a read locked by lockInvoicePayments sees every one committed.
   */
  busy: boolean;
}

/** A payment of invoice `i` other than `p` with the processor, as SQL. */
const BUSY_SQL = `exists (select 1 from payments q where q.invoice_id = i.id and q.status = 'processing' and q.id is distinct from p.id)`;

const invoicesToCollectSql = (lock: string) => `select r.n as request_n, i.*, t.frozen_time as clock_time, p.id as payment_id, p.status as payment_status,
    p.failure_message as payment_failure, row_to_json(c) as card, a.plan as account_plan, ${BUSY_SQL} as busy
  from unnest($1::text[], $2::int[]) with ordinality r(invoice_id, attempt, n)
    join invoices i on i.id = r.invoice_id join accounts a on a.id = i.account_id join customers cu on cu.id = i.customer_id
    left join test_clocks t on t.id = cu.test_clock_id
    left join payments p on p.invoice_id = i.id and p.invoice_attempt = r.attempt
    left join lateral (${chargedCardSql('i.customer_id', 'i.subscription_id')}) c on true
  order by i.id ${lock}`;
const INVOICES_TO_COLLECT_SQL = invoicesToCollectSql('');
// Locked in the invoices' order, so two transactions locking some of the same invoices never deadlock.
const LOCK_INVOICES_TO_COLLECT_SQL = invoicesToCollectSql('for update of i');

/** An invoice and the attempt (null: none) its collection reads it for. */
export interface CollectionRequest {
  invoiceId: string;
  attempt: number | null;
}

/**
 * The invoices with what each attempt needs, in one statement, in the order asked; locked for
 * `db`'s transaction when `lock`.
 */
export async function invoicesToCollect(db: Db, requests: readonly CollectionRequest[], lock = false): Promise<InvoiceToCollect[]> {
  type Read = InvoiceRow & { request_n: string; clock_time: Date | null; payment_id: string | null; payment_status: PaymentRow['status'] | null; payment_failure: string | null; card: ChargedCard | null; account_plan: string; busy: boolean };
  const rows = await sql<Read>(db, lock ? LOCK_INVOICES_TO_COLLECT_SQL : INVOICES_TO_COLLECT_SQL, [requests.map((r) => r.invoiceId), requests.map((r) => r.attempt)]);
  const read: InvoiceToCollect[] = [];
  for (const { request_n: n, clock_time: clockTime, payment_id: id, payment_status: status, payment_failure: failure, card, account_plan: plan, busy, ...invoice } of rows) {
    read[Number(n) - 1] = { invoice, clockTime, payment: id === null ? null : { id, status: status!, failure_message: failure }, card, plan, busy };
  }
  requests.forEach((r, i) => {
    if (read[i] === undefined) throw new Error(`invoice ${r.invoiceId} not found`);
  });
  return read;
}

/** One invoice with what attempt `attempt` (null: none) needs; locked for `db`'s transaction when `lock`. */
export async function invoiceToCollect(db: Db, invoiceId: string, attempt: number | null, lock = false): Promise<InvoiceToCollect> {
  return (await invoicesToCollect(db, [{ invoiceId, attempt }], lock))[0]!;
}

/**
 * The invoices of `ids` locked, in id order (two writers locking some of the same never deadlock):
 * the statement before any that must see every payment of them committed before the lock was had
 * (a statement that waits for a row lock still reads what committed before it began).
 */
function lockInvoicesStatement(ids: readonly string[]): Statement {
  return { text: 'select id from invoices where id = any($1::text[]) order by id for update', values: [ids] };
}

/**
 * The attempts' payments written in one statement, each while its invoice (locked by the statement
 * before it, lockInvoicesStatement, to the end) is open with the attempt still to make, still owes
 * the payment's amount (a credit note may have lowered it since it was read) and has no other
 * payment of it with the processor (one on its page: one charge at a time), unless written before
 * (payments_invoice_attempt): one statement, so the account's running totals, which the payments'
 * trigger takes at the first row, are held for it and the reads after it only. Its rows: the
 * invoices whose payment it wrote.
 */
function chargesStatement(charges: readonly { payment: PaymentRow; card: ChargedCard }[]): Statement {
  const rows = charges.map(({ payment, card }) => ({
    ...payment,
    card_expiry_month: card.expiry_month,
    card_expiry_year: card.expiry_year,
    card_token: card.processor_token,
  }));
  const columns = Object.keys(rows[0]!).map((column) => `"${column}"`).join(', ');
  const text = `with given as (select * from jsonb_populate_recordset(null::payments, $1::jsonb)),
    open as (select i.id from invoices i join given g on g.invoice_id = i.id
      where i.status = 'open' and i.attempt_count < g.invoice_attempt and i.amount_due_cents = g.amount_cents
        and not exists (select 1 from payments q where q.invoice_id = i.id and q.status = 'processing'))
    insert into payments (${columns}) select ${columns} from given where invoice_id in (select id from open)
    on conflict (invoice_id, invoice_attempt) where invoice_attempt is not null do nothing
    returning invoice_id`;
  return { text, values: [JSON.stringify(rows)] };
}

const ATTEMPT_PAYMENTS_SQL = `select r.n, p.id from unnest($1::text[], $2::int[]) with ordinality r(invoice_id, attempt, n)
  left join payments p on p.invoice_id = r.invoice_id and p.invoice_attempt = r.attempt`;

/** What writeInvoiceCharges did with one attempt's payment. */
export interface WrittenCharge {
  paymentId: string;
  /** When this call wrote it: the month's use it brings its account and mode to (in the month of `usageAt`). */
  usedCents: number | null;
}

/**
 * The attempts' payments (of invoices, their attempts set, each invoice once), written in one
 * simple query (one implicit transaction, or the caller's; lockInvoicesStatement then
 * chargesStatement), then read with the month's use of
 * each account and mode: the payments' trigger (migration 015) took each account's
 * processing_usage row in its inserts, so that read counts every charge before these and these,
 * and the row is held inside PostgreSQL only, until the implicit commit. For each, in order: the
 * payment; null when there is none, its invoice having moved on (paid, voided, the attempt
 * applied, its amount due lowered) since it was read.
 */
export async function writeInvoiceCharges(db: Db, charges: readonly { payment: PaymentRow; card: ChargedCard }[], usageAt: Date): Promise<(WrittenCharge | null)[]> {
  const scopes = [...new Set(charges.map(({ payment }) => `${payment.account_id} ${payment.mode}`))].map((scope) => scope.split(' ') as [string, PaymentRow['mode']]);
  const [, ...results] = await runStatements(db, [
    lockInvoicesStatement(charges.map(({ payment }) => payment.invoice_id!)),
    chargesStatement(charges),
    ...scopes.map(([accountId, mode]) => ({ text: MONTHLY_USAGE_SQL, values: monthlyUsageParams(accountId, mode, usageAt) })),
    { text: ATTEMPT_PAYMENTS_SQL, values: [charges.map((c) => c.payment.invoice_id), charges.map((c) => c.payment.invoice_attempt)] },
  ]);
  const insertedFor = new Set((results[0] as { invoice_id: string }[]).map((row) => row.invoice_id));
  const inserted = new Set(charges.flatMap(({ payment }, i) => (insertedFor.has(payment.invoice_id!) ? [i] : [])));
  const used = new Map(scopes.map(([accountId, mode], k) => [`${accountId} ${mode}`, Number((results[1 + k]![0] as { used: string | number }).used)]));
  const written: (WrittenCharge | null)[] = charges.map(() => null);
  for (const { n, id } of results[results.length - 1] as { n: string; id: string | null }[]) {
    const i = Number(n) - 1;
    const { payment } = charges[i]!;
    if (id !== null) written[i] = { paymentId: id, usedCents: inserted.has(i) ? used.get(`${payment.account_id} ${payment.mode}`)! : null };
  }
  return written;
}

/**
 * The invoice locked for `trx`, then read with whether a payment of it other than `except` is with
 * the processor (`busy`): read after the lock, so a charge written or a page payment begun while
 * this waited is seen, and none begins until `trx` ends. What a void, a charge asked for by hand
 * and a payment on its page decide by.
 */
export async function lockInvoicePayments(trx: Knex.Transaction, invoiceId: string, except: string | null = null): Promise<{ invoice: InvoiceRow; busy: boolean }> {
  const lock = lockInvoicesStatement([invoiceId]);
  await sql(trx, lock.text, [...lock.values]);
  const [row] = await sql<InvoiceRow & { busy: boolean }>(trx, `select i.*, ${BUSY_SQL} as busy from invoices i left join payments p on p.id = $2 where i.id = $1`, [invoiceId, except]);
  if (row === undefined) throw new Error(`invoice ${invoiceId} not found`);
  const { busy, ...invoice } = row;
  return { invoice, busy };
}

/**
 * The invoice attempts a process may have stopped in the middle of, for the boot-time resumer: a
 * payment still with the processor (whatever its invoice's status); one decided but not yet
 * applied to its open invoice; one that succeeded for an invoice voided or marked uncollectible
 * meanwhile and is not yet refunded (collect.ts refunds it when the attempt is applied).
 */
export async function unfinishedInvoiceCharges(db: Knex): Promise<{ invoice: Pick<InvoiceRow, 'id' | 'account_id' | 'mode'>; attempt: number; clockId: string | null }[]> {
  const rows = await sql<{ id: string; account_id: string; mode: InvoiceRow['mode']; attempt: number; clock_id: string | null }>(
    db,
    `select i.id, i.account_id, i.mode, p.invoice_attempt as attempt, cu.test_clock_id as clock_id
      from payments p join invoices i on i.id = p.invoice_id join customers cu on cu.id = i.customer_id
      where p.invoice_attempt is not null and (p.status = 'processing'
        or (i.status = 'open' and p.invoice_attempt > i.attempt_count)
        or (i.status in ('void', 'uncollectible') and p.status in ('succeeded', 'partially_refunded')))`,
  );
  return rows.map(({ attempt, clock_id: clockId, ...invoice }) => ({ invoice, attempt, clockId }));
}

/** Invoice columns an invoice's collection changes (its lines, kept as JSON, are not among them). */
export type InvoiceChanges = Partial<Omit<InvoiceRow, 'lines'>>;

/**
 * Changes the invoice and records `event` (and keeps `email`, if given) in the same statement
 * (db/events.ts changeRecordingEvent). The changed row.
 */
export async function changeInvoiceRecordingEvent(db: Db, invoiceId: string, changes: InvoiceChanges, event: NewEvent, email?: NewEmailRow): Promise<InvoiceRow> {
  const { text, values } = invoiceChangeStatement(invoiceId, changes, event, email);
  const changed = changedRow<InvoiceRow>(await sql(db, text, [...values]));
  if (changed === undefined) throw new Error(`invoice ${invoiceId} not found`);
  return changed;
}

/** The statement of changeInvoiceRecordingEvent, to be sent with others. */
export function invoiceChangeStatement(invoiceId: string, changes: InvoiceChanges, event: NewEvent, email?: NewEmailRow): Statement {
  const change = updateByIdStatement('invoices', invoiceId, changes, ' returning *');
  return changeRecordingEventStatement(change.text, change.values, event, email);
}
