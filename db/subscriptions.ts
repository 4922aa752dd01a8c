// Subscriptions and their items (migration 017).
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { SubscriptionDiscount } from '../domain/coupons';
import type { TaxRateTerms } from '../domain/invoice-arithmetic';
import type { CollectionMethod, InvoiceLine } from '../domain/invoices';
import type { PauseBehavior } from '../domain/pause-collection';
import type { PendingUpdate } from '../domain/subscription-changes';
import type { SubscriptionStatus, TrialEndBehavior } from '../domain/subscription-rules';
import type { PricedRow } from './prices';
import { sql, updateByIdStatement, type Statement } from './sql';
import type { TestClockRow } from './test-clocks';

type Db = Knex | Knex.Transaction;

export interface SubscriptionRow {
  id: string;
  account_id: string;
  mode: Mode;
  customer_id: string;
  status: SubscriptionStatus;
  billing_cycle_anchor: Date;
  current_period_start: Date;
  current_period_end: Date;
  cancel_at_period_end: boolean;
  cancel_at: Date | null;
  canceled_at: Date | null;
  ended_at: Date | null;
  cancel_reason: string | null;
  cancellation_details: { reason: string | null; feedback: string | null; comment: string | null };
  trial_start: Date | null;
  trial_end: Date | null;
  trial_end_behavior: TrialEndBehavior;
  /** The trial end whose trial_will_end notice went out. */
  trial_notice_for: Date | null;
  /** The period end whose invoice.upcoming went out. */
  upcoming_notice_for: Date | null;
  paused_at: Date | null;
  collection_method: CollectionMethod;
  days_until_due: number | null;
  card_id: string | null;
  card_missing_since: Date | null;
  latest_invoice_id: string | null;
  checkout_id: string | null;
  /** Where the customer pays the first invoice while the subscription is incomplete. */
  checkout_url: string | null;
  reference: string | null;
  success_url: string | null;
  cancel_url: string | null;
  test_clock_id: string | null;
  /** A change waiting for its invoice to be paid (`pending_if_incomplete`). */
  pending_update: PendingUpdate | null;
  /** Proration lines wait for the next period's invoice (db/pending-prorations.ts). */
  prorations_pending: boolean;
  /** `pauseCollection` (migration 025): its behaviour, null when collection is not paused. */
  pause_behavior: PauseBehavior | null;
  pause_resumes_at: Date | null;
  /** A part period up to the anchor below a card payment's minimum: lines for the first renewal invoice. */
  deferred_lines: InvoiceLine[] | null;
  /** Its coupon's discount while it runs (migration 028), and its tax rates' terms. */
  discount: SubscriptionDiscount | null;
  tax_rates: TaxRateTerms[];
  created_at: Date;
}

export interface SubscriptionItemRow {
  id: string;
  subscription_id: string;
  price_id: string;
  quantity: number;
  created_at: Date;
}

/** An item with its price and product, as the view and the invoices read it. */
export type PricedItem = SubscriptionItemRow & { price: PricedRow };

export async function insertSubscription(db: Db, row: SubscriptionRow, items: SubscriptionItemRow[]): Promise<void> {
  await db('subscriptions').insert({
    ...row,
    cancellation_details: JSON.stringify(row.cancellation_details),
    deferred_lines: row.deferred_lines === null ? null : JSON.stringify(row.deferred_lines),
    discount: row.discount === null ? null : JSON.stringify(row.discount),
    tax_rates: JSON.stringify(row.tax_rates),
  });
  await db('subscription_items').insert(items);
}

export async function updateSubscription(db: Db, id: string, changes: Partial<SubscriptionRow>): Promise<SubscriptionRow> {
  // JSON columns as JSON text (node-postgres would write an array as a PostgreSQL array).
  const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
  const written = {
    ...changes,
    ...(changes.pending_update === undefined ? {} : { pending_update: json(changes.pending_update) }),
    ...(changes.discount === undefined ? {} : { discount: json(changes.discount) }),
    ...(changes.tax_rates === undefined ? {} : { tax_rates: json(changes.tax_rates) }),
  };
  const [row] = (await db('subscriptions').where({ id }).update(written).returning('*')) as SubscriptionRow[];
  return row!;
}

/** The customer's subscriptions that had cardMissingSince, with it cleared. */
export async function clearCardMissing(db: Db, customerId: string): Promise<SubscriptionRow[]> {
  return (await db('subscriptions').where({ customer_id: customerId }).whereNotNull('card_missing_since').update({ card_missing_since: null }).returning('*')) as SubscriptionRow[];
}

/** updateSubscription's write as a statement, to be sent with others. */
export function subscriptionUpdateStatement(id: string, changes: Partial<SubscriptionRow>): Statement {
  return updateByIdStatement('subscriptions', id, changes);
}

/**
 * The subscription's items become `items`: those not named are deleted, those named changed, the
 * new ones (not yet kept) inserted.
 */
export async function replaceItems(db: Db, subscriptionId: string, items: readonly SubscriptionItemRow[]): Promise<void> {
  await db('subscription_items').where({ subscription_id: subscriptionId }).whereNotIn('id', items.map((i) => i.id)).delete();
  for (const item of items) {
    await db('subscription_items').insert(item).onConflict('id').merge(['price_id', 'quantity']);
  }
}

export async function lockSubscription(db: Db, id: string): Promise<SubscriptionRow> {
  return (await lockSubscriptions(db, [id]))[0]!;
}

/** The subscriptions locked for `db`'s transaction, in the order of their ids (see lockSubscriptionsOnClocks). */
export async function lockSubscriptions(db: Db, ids: readonly string[]): Promise<SubscriptionRow[]> {
  return sql<SubscriptionRow>(db, 'select * from subscriptions where id = any($1::text[]) order by id for update', [ids]);
}

const LOCK_WITH_CLOCKS_SQL = `select s.*, (select row_to_json(t) from test_clocks t where t.id = s.test_clock_id for share) as clock
  from subscriptions s where s.id = any($1::text[]) order by s.id for update of s`;

export type LockedClock = Pick<TestClockRow, 'id' | 'frozen_time' | 'advancing_to'>;

/**
 * The subscriptions locked for `db`'s transaction, in the order of their ids (so transactions
 * locking several never wait on each other in a circle), each with its test clock's row shared to
 * the transaction's end (the clock cannot move meanwhile: db/test-clocks.ts), or null on wall time.
 */
export async function lockSubscriptionsOnClocks(db: Db, ids: readonly string[]): Promise<{ subscription: SubscriptionRow; clock: LockedClock | null }[]> {
  type Json = { id: string; frozen_time: string; advancing_to: string | null };
  const rows = await sql<SubscriptionRow & { clock: Json | null }>(db, LOCK_WITH_CLOCKS_SQL, [ids]);
  return rows.map(({ clock, ...subscription }) => ({
    subscription,
    clock: clock === null ? null : { id: clock.id, frozen_time: new Date(clock.frozen_time), advancing_to: clock.advancing_to === null ? null : new Date(clock.advancing_to) },
  }));
}

/** The items of the subscriptions, each with its price and product: one query. */
const ITEMS_SQL = `select i.*, row_to_json(p) as price, d.name as product_name, d.description as product_description, d.active as product_active
  from subscription_items i join prices p on p.id = i.price_id join products d on d.id = p.product_id
  where i.subscription_id = any($1::text[]) order by i.id`;

export async function itemsOf(db: Db, subscriptionIds: readonly string[]): Promise<PricedItem[]> {
  const rows = await sql<SubscriptionItemRow & { price: PricedRow; product_name: string; product_description: string | null; product_active: boolean }>(db, ITEMS_SQL, [subscriptionIds]);
  return rows.map(({ product_name, product_description, product_active, price, ...item }) => ({
    ...item,
    price: { ...price, created_at: new Date(price.created_at), archived_at: price.archived_at === null ? null : new Date(price.archived_at), product_name, product_description, product_active },
  }));
}

/** The items of the subscriptions (itemsOf), by subscription. */
export async function itemsBySubscription(db: Db, subscriptionIds: readonly string[]): Promise<Map<string, PricedItem[]>> {
  const bySubscription = new Map<string, PricedItem[]>(subscriptionIds.map((id) => [id, []]));
  for (const item of await itemsOf(db, subscriptionIds)) bySubscription.get(item.subscription_id)!.push(item);
  return bySubscription;
}

export function subscriptionsQuery(db: Db, scope: { accountId: string; mode: Mode }, filters: { customerId?: string; status?: SubscriptionStatus }): Knex.QueryBuilder {
  const rows = db('subscriptions').where({ account_id: scope.accountId, mode: scope.mode });
  if (filters.customerId !== undefined) void rows.where({ customer_id: filters.customerId });
  if (filters.status !== undefined) void rows.where({ status: filters.status });
  return rows;
}

/** Every subscription not ended (the boot-time resumer's). */
export async function runningSubscriptions(db: Db): Promise<SubscriptionRow[]> {
  return (await db('subscriptions').whereNotIn('status', ['canceled', 'incomplete_expired'])) as SubscriptionRow[];
}
