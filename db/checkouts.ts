// Checkouts: the row, the public Checkout object (with its payment), and the page-side changes.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { Locale } from '../domain/locale';
import { findPayment, paymentView, type PaymentRow } from './payments';

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

export async function insertCheckout(db: Knex | Knex.Transaction, row: Omit<CheckoutRow, 'status' | 'completed_at' | 'expired_at'>): Promise<CheckoutRow> {
  const [inserted] = (await db('checkouts').insert({ ...row, status: 'open' }).returning('*')) as CheckoutRow[];
  return inserted as CheckoutRow;
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
