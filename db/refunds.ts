// Refunds: the row, the one statement that opens a refund against its payment, and the statements
// that record what the processor decided. Refunds on one payment never sum past the amount paid:
// the check and the write are one conditional UPDATE of the payment, in the statement that
// inserts the refund, under the payment's row lock.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { PaymentStatus } from './payments';
import { changeRecordingEventStatement, type NewEvent } from './events';
import { claimKeySql, claimParams, KeyTaken, type KeyRecord } from './idempotency-keys';
import { sql, type Statement } from './sql';

type Db = Knex | Knex.Transaction;

export type RefundStatus = 'pending' | 'succeeded' | 'failed';

/** The spec's smallest refund. */
export const REFUND_MIN_CENTS = 100;

/** A refund is allowed only on these; never on `processing`, `failed` or a fully refunded payment. */
export const REFUNDABLE_STATUSES: readonly PaymentStatus[] = ['succeeded', 'partially_refunded'];

export interface RefundRow {
  id: string;
  account_id: string;
  mode: Mode;
  payment_id: string;
  status: RefundStatus;
  amount_cents: string | number;
  reason: string | null;
  failure_message: string | null;
  created_at: Date;
  succeeded_at: Date | null;
}

/** What the refund rules read of the payment a refund is asked on. */
export interface RefundedPayment {
  mode: Mode;
  status: PaymentStatus;
  amount_cents: string | number;
  refunded_cents: string | number;
  /** The test clock's time of the customer whose invoice the payment paid; null off a clock. */
  clock_time: Date | null;
}

// A payment with its clock's time: a refund is dated in the time of the payment it refunds.
const PAYMENT_CLOCK_TIME = `left join invoices i on i.id = p.invoice_id
    left join customers c on c.id = i.customer_id
    left join test_clocks t on t.id = c.test_clock_id`;
const REFUNDED_PAYMENT_SQL = `select p.mode, p.status, p.amount_cents, p.refunded_cents, t.frozen_time as clock_time
    from payments p ${PAYMENT_CLOCK_TIME}
    where p.id = $1 and p.account_id = $2`;

// The statement that opens a refund. $1 payment, $2 account, $3 mode, $4 amount, $5 refund id,
// $6 reason, $7 time; then the Idempotency-Key's claim with its answer (claimKeySql). The payment
// is locked first: a concurrent refund's statement waits here, then reads the payment as that one
// left it. Only if the amount fits in what is left is the key claimed; only if the key was ours
// does the conditional UPDATE take the amount (`refunded_cents + amount <= amount_cents`, checked
// on the row as it stands) and move the status, and only if it took it is the refund inserted.
// Pending refunds count at once: what is left is never promised twice. The refund's time must be
// its payment's clock's, if it has one (else nothing is written). The payment comes back as it was
// found, to say why not.
const openRefundSql = (claim: string) => `with payment as (
    ${REFUNDED_PAYMENT_SQL} for update of p
  ),
  fits as (
    select 1 from payment
    where mode = $3 and status in (${REFUNDABLE_STATUSES.map((status) => `'${status}'`).join(', ')})
      and $4::bigint >= ${REFUND_MIN_CENTS} and refunded_cents + $4::bigint <= amount_cents
      and (clock_time is null or clock_time = $7::timestamptz)
  ),
  key_claim as (${claim}),
  taken as (
    update payments p
    set refunded_cents = p.refunded_cents + $4::bigint,
        status = case when p.refunded_cents + $4::bigint = p.amount_cents then 'refunded' else 'partially_refunded' end
    from key_claim
    where p.id = $1 and p.refunded_cents + $4::bigint <= p.amount_cents
    returning 1
  ),
  refund as (
    insert into refunds (id, account_id, mode, payment_id, status, amount_cents, reason, created_at)
    select $5::text, $2::text, $3::text, $1::text, 'pending', $4::bigint, $6::text, $7::timestamptz from taken
  )
  select payment.mode, payment.status, payment.amount_cents, payment.refunded_cents, payment.clock_time,
    exists (select 1 from fits) as fits, exists (select 1 from key_claim) as recorded
  from payment`;
const OPEN_REFUND_SQL = openRefundSql(claimKeySql(8, 'from fits'));

/**
 * The row a new refund will have once written, so its answer is known before the statement that
 * records it with the key.
 */
export function newRefundRow(refund: Pick<RefundRow, 'id' | 'account_id' | 'mode' | 'payment_id' | 'reason' | 'created_at'> & { amount_cents: number }): RefundRow {
  return { ...refund, status: 'pending', failure_message: null, succeeded_at: null };
}

/**
 * Opens the pending refund `refund` and adds it to its payment's `refunded_cents` (status
 * `partially_refunded` or `refunded`), recording the request's key with its answer, in one
 * statement. `opened` false when nothing was written: the account has no such payment (`payment`
 * null), or it is of the other mode, not refundable, or the amount does not fit; `payment`, as it
 * stood, says which. Throws KeyTaken if another request holds the key.
 */
export async function openRefund(db: Db, refund: RefundRow, record: KeyRecord): Promise<{ opened: boolean; payment: RefundedPayment | null }> {
  const [row] = await sql<RefundedPayment & { fits: boolean; recorded: boolean }>(db, OPEN_REFUND_SQL, [
    refund.payment_id, refund.account_id, refund.mode, refund.amount_cents, refund.id, refund.reason, refund.created_at,
    ...claimParams(record.key, randomUUID(), record.answer),
  ]);
  if (row === undefined) return { opened: false, payment: null };
  const { fits, recorded, ...payment } = row;
  if (fits && !recorded) throw new KeyTaken(record.key.scope);
  return { opened: fits, payment };
}

/** The account's payment as a refund would find it (null: none with that id). */
export async function findRefundablePayment(db: Db, accountId: string, paymentId: string): Promise<RefundedPayment | null> {
  const [row] = await sql<RefundedPayment>(db, REFUNDED_PAYMENT_SQL, [paymentId, accountId]);
  return row ?? null;
}

/** A refund with its payment's approved attempt (the processor's reference of what it refunds) and its clock's time. */
export interface RefundToSettle extends RefundRow {
  payment_attempt: number;
  clock_time: Date | null;
}

const REFUNDS_TO_SETTLE_SQL = `select r.*, p.settled_attempt as payment_attempt, t.frozen_time as clock_time
  from refunds r join payments p on p.id = r.payment_id ${PAYMENT_CLOCK_TIME}
  where r.id = any($1::text[])`;

/** The refunds of `ids` to settle, in that order (each id once): one statement. */
export async function findRefundsToSettle(db: Db, ids: readonly string[]): Promise<RefundToSettle[]> {
  const rows = await sql<RefundToSettle>(db, REFUNDS_TO_SETTLE_SQL, [ids]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => {
    const row = byId.get(id);
    if (row === undefined) throw new Error(`refund ${id} not found`);
    return row;
  });
}

/** An account's refunds of one mode, narrowed to one payment's. */
export function refundsQuery(db: Db, scope: { accountId: string; mode: Mode }, paymentId?: string): Knex.QueryBuilder {
  const rows = db<RefundRow>('refunds').where({ account_id: scope.accountId, mode: scope.mode });
  return paymentId === undefined ? rows : rows.where({ payment_id: paymentId });
}

/**
 * The statement that makes the pending refund succeeded and records `event` with it; its rows (to
 * changedRow) are none when it was no longer pending (a retried activity), and then no event either.
 */
export function refundSucceededStatement(id: string, now: Date, event: NewEvent): Statement {
  return changeRecordingEventStatement(`update refunds set status = 'succeeded', succeeded_at = $2 where id = $1 and status = 'pending' returning *`, [id, now], event);
}

/**
 * The pending refund failed: its amount is refundable again, and the payment's status follows
 * (`succeeded` with nothing refunded, else `partially_refunded`). Undefined when it was no longer
 * pending (a retried activity gives nothing back twice).
 */
export async function markRefundFailed(trx: Knex.Transaction, id: string, message: string): Promise<RefundRow | undefined> {
  const [row] = (await trx('refunds').where({ id, status: 'pending' }).update({ status: 'failed', failure_message: message }).returning('*')) as RefundRow[];
  if (row === undefined) return undefined;
  await trx.raw(
    `update payments set refunded_cents = refunded_cents - :amount,
       status = case when refunded_cents - :amount = 0 then 'succeeded' else 'partially_refunded' end
     where id = :id and status in ('partially_refunded', 'refunded')`,
    { amount: row.amount_cents, id: row.payment_id },
  );
  return row;
}

/** Every refund still with the processor, for the boot-time resumer. */
export async function pendingRefunds(db: Knex): Promise<Pick<RefundRow, 'id' | 'account_id' | 'mode'>[]> {
  return (await db('refunds').where({ status: 'pending' }).select('id', 'account_id', 'mode')) as Pick<RefundRow, 'id' | 'account_id' | 'mode'>[];
}
