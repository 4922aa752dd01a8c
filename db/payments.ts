// Payments: the row, and the outcomes a processor reports. Every
// change is a conditional UPDATE from the expected status, so a retried activity changes nothing
// twice.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { CardScheme } from '../domain/card';
import type { Order } from '../domain/checkout-rules';
import { sql } from './sql';

export const PAYMENT_STATUSES = [
  'requires_payment_method', 'processing', 'succeeded', 'failed', 'canceled', 'partially_refunded', 'refunded', 'disputed',
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export interface PaymentRow {
  id: string;
  account_id: string;
  mode: Mode;
  status: PaymentStatus;
  amount_cents: string | number;
  description: string;
  reference: string | null;
  customer_name: string | null;
  customer_email: string | null;
  customer_phone: string | null;
  card_scheme: CardScheme | null;
  card_last4: string | null;
  card_save: string;
  fee_cents: string | number | null;
  net_cents: string | number | null;
  refunded_cents: string | number;
  failure_message: string | null;
  failure_code: string | null;
  payment_link_id: string | null;
  saved_card_id: string | null;
  invoice_id: string | null;
  /** Which charge of its invoice this payment is (1 upward); null for a payment of its hosted page. */
  invoice_attempt: number | null;
  checkout_id: string | null;
  checkout_page_id: string | null;
  order: Order | null;
  attempts: number;
  settled_attempt: number;
  created_at: Date;
  succeeded_at: Date | null;
}

export interface NewPayment {
  id: string;
  accountId: string;
  mode: Mode;
  amountCents: number;
  description: string;
  reference: string | null;
  customer: { name: string; email: string; phone: string | null } | null;
  checkoutId: string;
  /** The payment link whose payer this payment is, if any. */
  paymentLinkId?: string | null;
  /** The invoice this payment pays (a payment of its hosted page), if any. */
  invoiceId?: string | null;
  order: Order | null;
  now: Date;
}

/**
 * The row a new payment will have once inserted: what it is given, and the columns' defaults
 * (migration 003), so its answer is known before the write.
 */
export function newPaymentRow(payment: NewPayment): PaymentRow {
  return {
    id: payment.id,
    account_id: payment.accountId,
    mode: payment.mode,
    status: 'requires_payment_method',
    amount_cents: payment.amountCents,
    description: payment.description,
    reference: payment.reference,
    customer_name: payment.customer?.name ?? null,
    customer_email: payment.customer?.email ?? null,
    customer_phone: payment.customer?.phone ?? null,
    card_scheme: null,
    card_last4: null,
    card_save: 'not_requested',
    fee_cents: null,
    net_cents: null,
    refunded_cents: 0,
    failure_message: null,
    failure_code: null,
    payment_link_id: payment.paymentLinkId ?? null,
    saved_card_id: null,
    invoice_id: payment.invoiceId ?? null,
    invoice_attempt: null,
    checkout_id: payment.checkoutId,
    checkout_page_id: null,
    order: payment.order,
    attempts: 0,
    settled_attempt: 0,
    created_at: payment.now,
    succeeded_at: null,
  };
}

/**
 * A page of the account's payments in `mode` (of `status` only, if given): at most `limit`, with
 * ids below `cursor`, newest first. Plain SQL (db/sql.ts), one statement per filter shape, prepared
 * once per connection.
 */
export async function paymentsPage(
  db: Knex | Knex.Transaction,
  scope: { accountId: string; mode: Mode },
  status: PaymentStatus | undefined,
  bounds: { cursor?: string; limit: number },
): Promise<PaymentRow[]> {
  const values: unknown[] = [scope.accountId, scope.mode];
  let where = 'account_id = $1 and mode = $2';
  if (status !== undefined) where += ` and status = $${values.push(status)}`;
  if (bounds.cursor !== undefined) where += ` and id < $${values.push(bounds.cursor)}`;
  return sql<PaymentRow>(db, `select * from payments where ${where} order by id desc limit $${values.push(bounds.limit)}`, values);
}

export async function findPayment(db: Knex | Knex.Transaction, id: string, forUpdate = false): Promise<PaymentRow> {
  const query = db<PaymentRow>('payments').where({ id }).first();
  const row = (await (forUpdate ? query.forUpdate() : query)) as PaymentRow | undefined;
  if (!row) throw new Error(`payment ${id} not found`);
  return row;
}

/** The account's payment in the mode, or undefined (another account's or mode's is none of its). */
export async function findPaymentOf(db: Knex | Knex.Transaction, accountId: string, mode: Mode, id: string): Promise<PaymentRow | undefined> {
  return (await db<PaymentRow>('payments').where({ id, account_id: accountId, mode }).first()) as PaymentRow | undefined;
}

/** The processor reference of an attempt: stable, so a repeated call finds the same session. */
export function processorReference(paymentId: string, attempt: number): string {
  return `${paymentId}.${attempt}`;
}

/** The payment and attempt a processor reference names (processorReference), or null. */
export function referencedAttempt(reference: string): { paymentId: string; attempt: number } | null {
  const match = /^(pay_[0-9a-z]+)\.([1-9][0-9]{0,8})$/.exec(reference);
  return match ? { paymentId: match[1]!, attempt: Number(match[2]) } : null;
}
