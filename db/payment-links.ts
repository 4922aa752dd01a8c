// Payment links: the row, and each link with how many payments it took (payments that succeeded,
// counted on the partial index payments_link_taken, migration 010).
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { LineItemInput } from '../domain/checkout-rules';
import type { Locale } from '../domain/locale';

type Db = Knex | Knex.Transaction;

export interface PaymentLinkRow {
  id: string;
  account_id: string;
  mode: Mode;
  active: boolean;
  amount_cents: string | number;
  description: string;
  /** As the merchant sent them; null for a fixed amount. */
  line_items: LineItemInput[] | null;
  locale: Locale;
  reference: string | null;
  success_url: string | null;
  save_card: boolean;
  url: string;
  created_at: Date;
  deactivated_at: Date | null;
}

export interface CountedPaymentLinkRow extends PaymentLinkRow {
  payment_count: number;
}

/** The `payment_count` column of the link whose id is `linkId` (a column of the outer query). */
const paymentCount = (linkId: string) => `(select count(*) from payments p
  where p.payment_link_id = ${linkId} and p.succeeded_at is not null)::int as payment_count`;

export async function insertPaymentLink(db: Db, row: PaymentLinkRow): Promise<void> {
  await db('payment_links').insert({ ...row, line_items: row.line_items === null ? null : JSON.stringify(row.line_items) });
}

export async function findPaymentLink(db: Db, id: string): Promise<PaymentLinkRow | undefined> {
  return (await db<PaymentLinkRow>('payment_links').where({ id }).first()) as PaymentLinkRow | undefined;
}

/** The account's newest `limit` links in the mode, newest first, each with its count: one query. */
export async function newestPaymentLinks(db: Db, scope: { accountId: string; mode: Mode }, limit: number): Promise<CountedPaymentLinkRow[]> {
  return (await db('payment_links')
    .where({ account_id: scope.accountId, mode: scope.mode })
    .select('payment_links.*', db.raw(paymentCount('payment_links.id')))
    .orderBy('id', 'desc')
    .limit(limit)) as CountedPaymentLinkRow[];
}

/** Turns the link off (kept off from the first time: `deactivated_at` stays), with its count. */
export async function markPaymentLinkInactive(db: Db, id: string, now: Date): Promise<CountedPaymentLinkRow> {
  const { rows } = (await db.raw(
    `with updated as (
       update payment_links set active = false, deactivated_at = coalesce(deactivated_at, ?) where id = ? returning *
     )
     select updated.*, ${paymentCount('updated.id')} from updated`,
    [now, id],
  )) as { rows: CountedPaymentLinkRow[] };
  const [row] = rows;
  if (!row) throw new Error(`payment link ${id} not found`);
  return row;
}
