// Checkouts: the row, the one-statement write of a new checkout, and the queries of its lifetime.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { Locale } from '../domain/locale';
import { MONTHLY_USAGE_SQL, monthlyUsageParams } from './monthly-usage';
import { claimKeySql, claimParams, KeyTaken, type KeyRecord } from './idempotency-keys';
import { newPaymentRow, type NewPayment, type PaymentRow } from './payments';
import { sql } from './sql';

export type CheckoutStatus = 'open' | 'completed' | 'expired';

export interface CheckoutRow {
  id: string;
  account_id: string;
  mode: Mode;
  status: CheckoutStatus;
  payment_id: string;
  locale: Locale;
  url: string;
  success_url: string | null;
  cancel_url: string | null;
  save_card: boolean;
  /** The merchant named the customer (a secret key's checkout with `customer`): docs/reference/cards.md. */
  customer_named: boolean;
  expires_at: Date;
  created_at: Date;
  completed_at: Date | null;
  expired_at: Date | null;
}

export type NewCheckout = Pick<CheckoutRow, 'id' | 'locale' | 'url' | 'success_url' | 'cancel_url' | 'save_card' | 'customer_named' | 'expires_at'>;

// The month's use, the Idempotency-Key with its answer, the payment and the checkout, in one
// statement, atomic without a transaction: two round trips for the hottest write (the caller's
// key, then this), and nothing half-written if it fails. The key is recorded only if the month
// has room, and the payment only if the key was ours. A payer's checkout from a payment link has
// no key (the page makes one checkout per press): `claim` is then the month's room alone.
const openCheckoutSql = (claim: string) => `with usage as (${MONTHLY_USAGE_SQL}),
  room as (select 1 from usage where usage.used <= $15::bigint),
  key_claim as (${claim}),
  payment as (
    insert into payments (id, account_id, mode, status, amount_cents, description, reference, customer_name, customer_email,
      customer_phone, checkout_id, "order", created_at, payment_link_id, invoice_id)
    select $5::text, $1::text, $2::text, 'requires_payment_method', $6::bigint, $7::text, $8::text, $9::text, $10::text,
      $11::text, $12::text, $13::json, $14::timestamptz, $22::text, $23::text
    from key_claim
    returning 1
  ),
  checkout as (
    insert into checkouts (id, account_id, mode, status, payment_id, locale, url, success_url, cancel_url, save_card, expires_at, created_at,
      customer_named)
    select $12::text, $1::text, $2::text, 'open', $5::text, $16::text, $17::text, $18::text, $19::text, $20::boolean,
      $21::timestamptz, $14::timestamptz, $24::boolean
    from payment
  )
  select usage.used as month_used_cents, exists (select 1 from room) as room, exists (select 1 from key_claim) as recorded from usage`;
const OPEN_CHECKOUT_SQL = openCheckoutSql(claimKeySql(25, 'from room'));
const OPEN_UNKEYED_CHECKOUT_SQL = openCheckoutSql('select 1 from room');

export interface NewCheckoutRows {
  checkout: CheckoutRow;
  payment: PaymentRow;
}

/**
 * The rows a new checkout and its payment will have once written, so their answer is known before
 * the write that records it with the key.
 */
export function newCheckoutRows(payment: NewPayment, checkout: NewCheckout): NewCheckoutRows {
  return {
    payment: newPaymentRow(payment),
    checkout: {
      ...checkout,
      account_id: payment.accountId,
      mode: payment.mode,
      status: 'open',
      payment_id: payment.id,
      created_at: payment.now,
      completed_at: null,
      expired_at: null,
    },
  };
}

/**
 * Writes a new checkout with its payment and records the request's Idempotency-Key with its answer
 * (`record`; null for a payment link's payer), unless the month has already used more than
 * `mostUsedCents` (domain/plans.ts: the payment would take it past the limit): then nothing is
 * written and the month's use comes back. Throws KeyTaken if another request holds the key.
 */
export async function openCheckout(db: Knex | Knex.Transaction, rows: NewCheckoutRows, mostUsedCents: number, record: KeyRecord | null): Promise<{ limitReached: false } | { limitReached: true; usedCents: number }> {
  const { checkout, payment } = rows;
  const [row] = await sql<{ month_used_cents: number; room: boolean; recorded: boolean }>(db, record === null ? OPEN_UNKEYED_CHECKOUT_SQL : OPEN_CHECKOUT_SQL, [
    ...monthlyUsageParams(payment.account_id, payment.mode, payment.created_at),
    payment.id,
    payment.amount_cents,
    payment.description,
    payment.reference,
    payment.customer_name,
    payment.customer_email,
    payment.customer_phone,
    checkout.id,
    payment.order === null ? null : JSON.stringify(payment.order),
    payment.created_at,
    mostUsedCents,
    checkout.locale,
    checkout.url,
    checkout.success_url,
    checkout.cancel_url,
    checkout.save_card,
    checkout.expires_at,
    payment.payment_link_id,
    payment.invoice_id,
    checkout.customer_named,
    ...(record === null ? [] : claimParams(record.key, randomUUID(), record.answer)),
  ]);
  const { month_used_cents: usedCents, room, recorded } = row as { month_used_cents: number; room: boolean; recorded: boolean };
  if (!room) return { limitReached: true, usedCents };
  if (record !== null && !recorded) throw new KeyTaken(record.key.scope);
  return { limitReached: false };
}

export async function findCheckout(db: Knex | Knex.Transaction, id: string, forUpdate = false): Promise<CheckoutRow | undefined> {
  const query = db<CheckoutRow>('checkouts').where({ id }).first();
  return (await (forUpdate ? query.forUpdate() : query)) as CheckoutRow | undefined;
}

/** Every open checkout, with the attempt still with the processor (null when none is). */
export async function openCheckouts(db: Knex): Promise<(Pick<CheckoutRow, 'id' | 'account_id' | 'mode' | 'expires_at'> & { attempt_in_flight: number | null })[]> {
  return db('checkouts as c')
    .join('payments as p', 'p.id', 'c.payment_id')
    .where('c.status', 'open')
    .select('c.id', 'c.account_id', 'c.mode', 'c.expires_at', db.raw(`case when p.status = 'processing' then p.attempts end as attempt_in_flight`));
}
