// Saved cards: the row, the one-statement write of a charge's payment, and the queries of the
// list, the sweep and the boot-time resumers. Only what the processor reports is kept (scheme,
// last4, expiry, its token).
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { AccountStanding } from '../domain/account-rules';
import type { CardScheme } from '../domain/card';
import type { Locale } from '../domain/locale';
import { PAID_PAYMENT_STATUSES } from '../domain/checkout-rules';
import { claimKeySql, claimParams, KeyTaken, type KeyRecord } from './idempotency-keys';
import { MONTHLY_USAGE_SQL, monthlyUsageParams } from './monthly-usage';
import { newPaymentRow, type PaymentRow } from './payments';
import { batchedByKey, batcherOf } from './batched';
import { isTransaction, runStatements, sql } from './sql';

type Db = Knex | Knex.Transaction;

export interface SavedCardRow {
  id: string;
  account_id: string;
  mode: Mode;
  customer_email: string;
  scheme: CardScheme;
  last4: string;
  expiry_month: number;
  expiry_year: number;
  processor_token: string | null;
  payment_id: string;
  consent_at: Date;
  consent_locale: Locale;
  consent_wording: string;
  created_at: Date;
  retired_at: Date | null;
  expiring_notified_at: Date | null;
}

export type NewSavedCard = Omit<SavedCardRow, 'retired_at' | 'expiring_notified_at'>;

/** Keeps the card; a payment keeps one card at most, so a second write finds the first. */
export async function insertSavedCard(trx: Knex.Transaction, card: NewSavedCard): Promise<SavedCardRow> {
  await trx('saved_cards').insert(card).onConflict('payment_id').ignore();
  return (await trx('saved_cards').where({ payment_id: card.payment_id }).first()) as SavedCardRow;
}

export async function findSavedCard(db: Db, id: string, forUpdate = false): Promise<SavedCardRow | undefined> {
  const query = db<SavedCardRow>('saved_cards').where({ id }).first();
  return (await (forUpdate ? query.forUpdate() : query)) as SavedCardRow | undefined;
}

/** A payment as its card is kept: with the consent the customer gave on the hosted page. */
export interface PaymentWithConsent extends PaymentRow {
  card_consent_at: Date;
  card_consent_locale: Locale;
  card_consent_wording: string;
}

export async function lockPaymentWithConsent(trx: Knex.Transaction, paymentId: string): Promise<PaymentWithConsent> {
  return (await trx('payments').where({ id: paymentId }).forUpdate().first()) as PaymentWithConsent;
}

/** The newest `limit` active cards of the account's mode (of one email, any letter case). */
export async function newestSavedCards(db: Db, scope: { accountId: string; mode: Mode }, email: string | undefined, limit: number): Promise<SavedCardRow[]> {
  const query = db<SavedCardRow>('saved_cards').where({ account_id: scope.accountId, mode: scope.mode }).whereNull('retired_at');
  if (email !== undefined) void query.whereRaw('lower(customer_email) = lower(?)', [email]);
  return (await query.orderBy('id', 'desc').limit(limit)) as SavedCardRow[];
}

/** Retires the card (kept retired from the first time: `retired_at` stays). */
export async function retireSavedCard(db: Db, id: string, now: Date): Promise<SavedCardRow> {
  const [row] = (await db('saved_cards').where({ id }).update({ retired_at: db.raw('coalesce(retired_at, ?)', [now]) }).returning('*')) as SavedCardRow[];
  if (!row) throw new Error(`saved card ${id} not found`);
  return row;
}

/** The card becomes the customer's default. */
export async function makeDefaultCard(trx: Knex.Transaction, card: SavedCardRow, customerId: string, now: Date): Promise<void> {
  await trx('customers').where({ id: customerId }).update({ default_card_id: card.id, updated_at: now });
}

/** What a charge's payment is made of: the card, the merchant's request, and the new payment's id and time. */
export interface NewCharge {
  card: Pick<SavedCardRow, 'id' | 'account_id' | 'mode' | 'customer_email' | 'scheme' | 'last4'>;
  id: string;
  amountCents: number;
  description: string;
  reference: string | null;
  now: Date;
}

/**
 * The row a charge's payment will have once written (a checkout's new payment, with what a charge
 * has instead: no checkout, the card already chosen, with the processor from the start).
 */
export function newChargeRow(charge: NewCharge): PaymentRow {
  const { card } = charge;
  return {
    ...newPaymentRow({ ...charge, accountId: card.account_id, mode: card.mode, customer: null, checkoutId: '', order: null }),
    status: 'processing',
    customer_email: card.customer_email,
    card_scheme: card.scheme,
    card_last4: card.last4,
    checkout_id: null,
    saved_card_id: card.id,
    attempts: 1,
  };
}

// The month's use, the card still active, the Idempotency-Key with its answer and the payment, in
// one statement. The card row is held `for share` to the end, so a deletion waits for the charge or
// the charge sees it.
const OPEN_CHARGE_SQL = `with usage as (${MONTHLY_USAGE_SQL}),
  room as (select 1 from usage where usage.used <= $5::bigint),
  card as (select 1 from saved_cards where id = $6::text and retired_at is null for share),
  allowed as (select 1 from room, card),
  key_claim as (${claimKeySql(18, 'from allowed')}),
  payment as (
    insert into payments (id, account_id, mode, status, amount_cents, description, reference, customer_email, card_scheme,
      card_last4, card_expiry_month, card_expiry_year, card_token, saved_card_id, attempts, created_at)
    select $7::text, $1::text, $2::text, 'processing', $8::bigint, $9::text, $10::text, $11::text, $12::text,
      $13::text, $14::int, $15::int, $16::text, $6::text, 1, $17::timestamptz
    from key_claim
    returning 1
  )
  select usage.used as month_used_cents, exists (select 1 from room) as room, exists (select 1 from card) as card_active,
    exists (select 1 from key_claim) as recorded
  from usage`;

type OpenedRow = { month_used_cents: string | number; room: boolean; card_active: boolean; recorded: boolean };

type Opening = { lockKey: string; values: readonly unknown[] };

/**
 * The charges' statements after taking their account's advisory lock, all in one simple query
 * (db/sql.ts runStatements): the lock is held inside PostgreSQL only. In the one implicit
 * transaction each statement sees the payments of those before it, so the month's room is counted
 * as if they came one by one.
 */
async function openAllAfterLock(db: Db, charges: readonly Opening[]): Promise<OpenedRow[]> {
  const lock = { text: 'select pg_advisory_xact_lock(hashtext($1))', values: [charges[0]!.lockKey] };
  const results = await runStatements(db, [lock, ...charges.map(({ values }) => ({ text: OPEN_CHARGE_SQL, values }))]);
  return charges.map((_charge, k) => results[1 + k]![0] as OpenedRow);
}

/**
 * One charge's statement after its lock. The charges of one account opened at one moment (a
 * burst of requests) go together, one batch at a time (db/batched.ts), each batch taking the one
 * lock: an account's batch never waits on another's lock, nor holds it up. In a transaction, alone.
 */
async function openAfterLock(db: Db, opening: Opening): Promise<OpenedRow> {
  if (isTransaction(db)) return (await openAllAfterLock(db, [opening]))[0]!;
  return batcherOf(db, 'open charges', () => batchedByKey((o: Opening) => o.lockKey, (charges: Opening[]) => openAllAfterLock(db, charges), 25, 1))(opening);
}

/** Whether the charge's payment was written; the month's use before it, when the card was active. */
export type OpenedCharge = { opened: true; usedCents: number } | { opened: false; cardActive: false } | { opened: false; cardActive: true; usedCents: number };

/**
 * Writes the charge's payment (`processing`) and records the request's key with its answer, under
 * `lockKey`'s advisory lock (`<account>:<mode>`, the one Pay takes), unless the card was retired
 * meanwhile or the month has already used more than `mostUsedCents`: then nothing is written.
 * Throws KeyTaken if another request holds the key.
 */
export async function openCharge(db: Db, lockKey: string, payment: PaymentRow, card: SavedCardRow, mostUsedCents: number, record: KeyRecord & { lockToken: string }): Promise<OpenedCharge> {
  const row = await openAfterLock(db, { lockKey, values: [
    ...monthlyUsageParams(card.account_id, card.mode, payment.created_at),
    mostUsedCents,
    card.id,
    payment.id,
    payment.amount_cents,
    payment.description,
    payment.reference,
    card.customer_email,
    card.scheme,
    card.last4,
    card.expiry_month,
    card.expiry_year,
    card.processor_token,
    payment.created_at,
    ...claimParams(record.key, record.lockToken, record.answer),
  ] });
  const { month_used_cents: used, room, card_active: cardActive, recorded } = row;
  const usedCents = Number(used);
  if (!cardActive) return { opened: false, cardActive: false };
  if (!room) return { opened: false, cardActive: true, usedCents };
  if (!recorded) throw new KeyTaken(record.key.scope);
  return { opened: true, usedCents };
}

/** A charge's payment with what asking the processor about it needs: its card and merchant. */
export interface ChargeToSettle {
  payment: PaymentRow;
  /** The columns of the card that are not times (it comes as JSON). */
  card: Pick<SavedCardRow, 'id' | 'scheme' | 'last4' | 'expiry_month' | 'expiry_year' | 'processor_token' | 'consent_locale'>;
  /** What settling reads of the merchant: its name for the processor, its standing and plan. */
  merchant: AccountStanding & { name: string; plan: string };
  /** The charge is an invoice's, of a customer on a test clock: the clock's time (the charge's). */
  clockTime: Date | null;
}

// Read every time a charge's workflow asks about it: a named prepared statement (db/sql.ts).
const CHARGES_TO_SETTLE_SQL = `select p.*, row_to_json(c) as saved_card, a.name as merchant_name, a.plan as merchant_plan,
    a.status as merchant_status, a.live_activated_at as merchant_live_activated_at, t.frozen_time as clock_time
  from unnest($1::text[]) with ordinality r(id, n) join payments p on p.id = r.id
    join saved_cards c on c.id = p.saved_card_id join accounts a on a.id = p.account_id
    left join invoices i on i.id = p.invoice_id left join customers cu on cu.id = i.customer_id left join test_clocks t on t.id = cu.test_clock_id
  order by r.n`;

/** The charges' payments with what settling them reads, in the order asked. */
export async function findChargesToSettle(db: Db, paymentIds: readonly string[]): Promise<ChargeToSettle[]> {
  type Merchant = { merchant_name: string; merchant_plan: string; merchant_status: AccountStanding['status']; merchant_live_activated_at: Date | null; clock_time: Date | null };
  const rows = await sql<PaymentRow & Merchant & { saved_card: ChargeToSettle['card'] }>(db, CHARGES_TO_SETTLE_SQL, [paymentIds]);
  if (rows.length !== paymentIds.length) throw new Error(`saved-card charges not found among ${paymentIds.join(', ')}`);
  return rows.map(({ saved_card: card, merchant_name: name, merchant_plan: plan, merchant_status: status, merchant_live_activated_at: liveActivatedAt, clock_time: clockTime, ...payment }) => ({
    payment,
    card,
    merchant: { name, plan, status, liveActivatedAt },
    clockTime,
  }));
}

/** Every saved-card charge still with the processor (their workflows' boot-time restart). */
export async function processingCharges(db: Knex): Promise<Pick<PaymentRow, 'id' | 'account_id' | 'mode'>[]> {
  // An invoice's charges are asked about by the invoice's collection instead.
  return db('payments').whereNotNull('saved_card_id').whereNull('invoice_id').where({ status: 'processing' }).select('id', 'account_id', 'mode');
}

/**
 * Checkouts paid whose card is still to be kept (the process stopped between the two steps): each
 * with the attempt that paid it, for its lifetime workflow to apply again.
 */
export async function checkoutsWithCardToKeep(db: Knex): Promise<{ id: string; account_id: string; mode: Mode; expires_at: Date; settled_attempt: number }[]> {
  return db('payments as p')
    .join('checkouts as c', 'c.payment_id', 'p.id')
    .where({ 'p.card_save': 'requested' })
    .whereIn('p.status', PAID_PAYMENT_STATUSES)
    .select('c.id', 'c.account_id', 'c.mode', 'c.expires_at', 'p.settled_attempt');
}

/**
 * Up to `limit` active cards of one expiry month kept before `keptBefore` and not yet told about,
 * locked for `trx` (rows another sweep holds are skipped).
 */
export async function lockExpiringCards(trx: Knex.Transaction, expiry: { year: number; month: number }, keptBefore: Date, limit: number): Promise<SavedCardRow[]> {
  return (await trx('saved_cards')
    .where({ expiry_year: expiry.year, expiry_month: expiry.month })
    .whereNull('retired_at')
    .whereNull('expiring_notified_at')
    .where('created_at', '<', keptBefore)
    .orderBy('id')
    .limit(limit)
    .forUpdate()
    .skipLocked()) as SavedCardRow[];
}

export async function markExpiringNotified(trx: Knex.Transaction, ids: readonly string[], now: Date): Promise<void> {
  await trx('saved_cards').whereIn('id', ids).update({ expiring_notified_at: now });
}
