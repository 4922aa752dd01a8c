// Checkouts: the row, the public Checkout object (with its payment), and the page-side changes.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { Locale } from '../domain/locale';
import { MONTHLY_USAGE_SQL, monthlyUsageParams } from './monthly-usage';
import { findPayment, paymentView, type NewPayment, type PaymentRow } from './payments';
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
  expires_at: Date;
  created_at: Date;
  completed_at: Date | null;
  expired_at: Date | null;
}

export type NewCheckout = Pick<CheckoutRow, 'id' | 'locale' | 'url' | 'success_url' | 'cancel_url' | 'save_card' | 'expires_at'>;

// The month's use, the payment (only if the limit has room for it) and the checkout, in one
// statement: one round trip on the hottest write, and nothing half-written if it fails.
const OPEN_CHECKOUT_SQL = `with usage as (${MONTHLY_USAGE_SQL}),
  payment as (
    insert into payments (id, account_id, mode, status, amount_cents, description, reference, customer_name, customer_email,
      customer_phone, checkout_id, "order", created_at)
    select $5::text, $1::text, $2::text, 'requires_payment_method', $6::bigint, $7::text, $8::text, $9::text, $10::text,
      $11::text, $12::text, $13::json, $14::timestamptz
    from usage where $15::bigint is null or usage.used + $6::bigint <= $15::bigint
    returning *
  ),
  checkout as (
    insert into checkouts (id, account_id, mode, status, payment_id, locale, url, success_url, cancel_url, save_card, expires_at, created_at)
    select $12::text, $1::text, $2::text, 'open', payment.id, $16::text, $17::text, $18::text, $19::text, $20::boolean,
      $21::timestamptz, $14::timestamptz
    from payment
  )
  select usage.used as month_used_cents, payment.* from usage left join payment on true`;

export type OpenedCheckout = { checkout: CheckoutRow; payment: PaymentRow } | { limitReached: true; usedCents: number };

/**
 * Opens a checkout with its payment, unless the payment would take the month past `limitCents`
 * (null: no limit); then nothing is written and the month's use comes back.
 */
export async function openCheckout(db: Knex | Knex.Transaction, payment: NewPayment, checkout: NewCheckout, limitCents: number | null): Promise<OpenedCheckout> {
  const [row] = await sql<PaymentRow & { month_used_cents: number }>(db, OPEN_CHECKOUT_SQL, [
    ...monthlyUsageParams(payment.accountId, payment.mode, payment.now),
    payment.id,
    payment.amountCents,
    payment.description,
    payment.reference,
    payment.customer?.name ?? null,
    payment.customer?.email ?? null,
    payment.customer?.phone ?? null,
    checkout.id,
    payment.order === null ? null : JSON.stringify(payment.order),
    payment.now,
    limitCents,
    checkout.locale,
    checkout.url,
    checkout.success_url,
    checkout.cancel_url,
    checkout.save_card,
    checkout.expires_at,
  ]);
  const { month_used_cents: usedCents, ...paymentRow } = row as PaymentRow & { month_used_cents: number };
  if (paymentRow.id === null) return { limitReached: true, usedCents };
  const opened: CheckoutRow = {
    ...checkout,
    account_id: payment.accountId,
    mode: payment.mode,
    status: 'open',
    payment_id: paymentRow.id,
    created_at: payment.now,
    completed_at: null,
    expired_at: null,
  };
  return { checkout: opened, payment: paymentRow };
}

export async function findCheckout(db: Knex | Knex.Transaction, id: string, forUpdate = false): Promise<CheckoutRow | undefined> {
  const query = db<CheckoutRow>('checkouts').where({ id }).first();
  return (await (forUpdate ? query.forUpdate() : query)) as CheckoutRow | undefined;
}

/** `{checkout_url}/checkout/<id>`, with `/si` or `/ta` before `checkout` for those locales. */
export function checkoutUrl(publicBaseUrl: string, id: string, locale: Locale): string {
  return `${publicBaseUrl}${locale === 'en' ? '' : `/${locale}`}/checkout/${id}`;
}

export function checkoutView(row: CheckoutRow, payment: PaymentRow) {
  return {
    object: 'checkout' as const,
    id: row.id,
    mode: row.mode,
    status: row.status,
    url: row.url,
    locale: row.locale,
    successUrl: row.success_url,
    cancelUrl: row.cancel_url,
    saveCard: row.save_card,
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    payment: paymentView(payment),
  };
}

export async function loadCheckoutView(db: Knex | Knex.Transaction, row: CheckoutRow) {
  return checkoutView(row, await findPayment(db, row.payment_id));
}

/** Open checkouts and the time each has left, for the boot-time restart of their lifetimes. */
export async function openCheckouts(db: Knex): Promise<Pick<CheckoutRow, 'id' | 'account_id' | 'mode' | 'expires_at'>[]> {
  return db('checkouts').where({ status: 'open' }).select('id', 'account_id', 'mode', 'expires_at');
}
