// Refunds: the row, the one statement that opens a refund against its payment, and the statements
// that record what the processor decided. Refunds on one payment never sum past the amount paid:
// the check and the write are one conditional UPDATE of the payment, in the statement that
// inserts the refund, under the payment's row lock.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { PaymentStatus } from './payments';
import { sql } from './sql';

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

/** The payment a refund was asked on, as the statement found it (locked, so current). */
export interface RefundedPayment {
  mode: Mode;
  status: PaymentStatus;
  amount_cents: string | number;
  refunded_cents: string | number;
}

// $1 payment, $2 account, $3 mode, $4 amount (null: everything left), $5 refund id, $6 reason,
// $7 time. The payment is locked first (a concurrent refund's statement waits here, then reads the
// payment as that one left it); the refund's amount is decided from it; the UPDATE takes the
// amount only while it fits (`refunded_cents + amount <= amount_cents`, re-checked on the row as
// it stands); the refund is inserted only if the UPDATE took it. Pending refunds count at once:
// what is left is never promised twice. The payment comes back as it was found, to say why not.
const OPEN_REFUND_SQL = `with payment as (
    select id, mode, status, amount_cents, refunded_cents from payments where id = $1 and account_id = $2 for update
  ),
  asked as (
    select coalesce($4::bigint, amount_cents - refunded_cents) as amount_cents from payment
    where mode = $3 and status in (${REFUNDABLE_STATUSES.map((status) => `'${status}'`).join(', ')})
  ),
  taken as (
    update payments p
    set refunded_cents = p.refunded_cents + asked.amount_cents,
        status = case when p.refunded_cents + asked.amount_cents = p.amount_cents then 'refunded' else 'partially_refunded' end
    from asked
    where p.id = $1 and asked.amount_cents >= ${REFUND_MIN_CENTS} and p.refunded_cents + asked.amount_cents <= p.amount_cents
    returning asked.amount_cents
  ),
  refund as (
    insert into refunds (id, account_id, mode, payment_id, status, amount_cents, reason, created_at)
    select $5::text, $2::text, $3::text, $1::text, 'pending', taken.amount_cents, $6::text, $7::timestamptz from taken
    returning amount_cents
  )
  select payment.mode, payment.status, payment.amount_cents, payment.refunded_cents, (select amount_cents from refund) as refund_cents
  from payment`;

export interface NewRefund {
  id: string;
  accountId: string;
  mode: Mode;
  paymentId: string;
  /** Null: everything still refundable. */
  amountCents: number | null;
  reason: string | null;
  now: Date;
}

/**
 * Opens a pending refund and adds it to its payment's `refunded_cents` (status
 * `partially_refunded` or `refunded`), in one statement. `refund` is null when nothing was
 * written: the account has no such payment (`payment` null too), or it is of the other mode, not
 * refundable, or the amount does not fit; `payment`, as it stood, says which.
 */
export async function openRefund(db: Db, input: NewRefund): Promise<{ payment: RefundedPayment | null; refund: RefundRow | null }> {
  const [row] = await sql<RefundedPayment & { refund_cents: string | number | null }>(db, OPEN_REFUND_SQL, [
    input.paymentId, input.accountId, input.mode, input.amountCents, input.id, input.reason, input.now,
  ]);
  if (row === undefined) return { payment: null, refund: null };
  const { refund_cents: refundCents, ...payment } = row;
  if (refundCents === null) return { payment, refund: null };
  const refund: RefundRow = {
    id: input.id,
    account_id: input.accountId,
    mode: input.mode,
    payment_id: input.paymentId,
    status: 'pending',
    amount_cents: refundCents,
    reason: input.reason,
    failure_message: null,
    created_at: input.now,
    succeeded_at: null,
  };
  return { payment, refund };
}

export async function findRefund(db: Db, id: string): Promise<RefundRow> {
  const row = (await db<RefundRow>('refunds').where({ id }).first()) as RefundRow | undefined;
  if (!row) throw new Error(`refund ${id} not found`);
  return row;
}

/** An account's refunds of one mode, narrowed to one payment's. */
export function refundsQuery(db: Db, scope: { accountId: string; mode: Mode }, paymentId?: string): Knex.QueryBuilder {
  const rows = db<RefundRow>('refunds').where({ account_id: scope.accountId, mode: scope.mode });
  return paymentId === undefined ? rows : rows.where({ payment_id: paymentId });
}

/** The pending refund succeeded; undefined when it was no longer pending (a retried activity). */
export async function markRefundSucceeded(trx: Knex.Transaction, id: string, now: Date): Promise<RefundRow | undefined> {
  const [row] = (await trx('refunds').where({ id, status: 'pending' }).update({ status: 'succeeded', succeeded_at: now }).returning('*')) as RefundRow[];
  return row;
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
