// Entitlement features, the features products grant (product_features) and each customer's last
// summary of active entitlements (entitlement_summaries).
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import { ENTITLING_STATUSES } from '../domain/entitlements';
import { sql } from './sql';

type Db = Knex | Knex.Transaction;
type Scope = { accountId: string; mode: Mode };

export interface FeatureRow {
  id: string;
  account_id: string;
  mode: Mode;
  name: string;
  lookup_key: string;
  active: boolean;
  created_at: Date;
}

/** A product feature with what its answer shows of the feature. */
export interface ProductFeatureRow {
  id: string;
  product_id: string;
  feature_id: string;
  lookup_key: string;
  created_at: Date;
}

export interface ActiveEntitlementRow {
  feature_id: string;
  lookup_key: string;
}

/** Inserts the feature unless an active one of its account and mode has its lookup key (even one a create racing it made): whether it was inserted. */
export async function insertFeature(db: Db, row: FeatureRow): Promise<boolean> {
  const inserted = await db('entitlement_features').insert(row).onConflict(db.raw('(account_id, mode, lookup_key) where active')).ignore().returning('id');
  return inserted.length > 0;
}

/** An account's features of one mode, all or only the active (or archived) ones. */
export function featuresQuery(db: Db, scope: Scope, active?: boolean): Knex.QueryBuilder {
  const rows = db<FeatureRow>('entitlement_features').where({ account_id: scope.accountId, mode: scope.mode });
  return active === undefined ? rows : rows.where({ active });
}

export type FeatureChanges = Partial<Pick<FeatureRow, 'name' | 'active'>>;

/**
 * The feature changed; undefined when bringing it back meets an active feature of its lookup key
 * (the unique index decides, also against a create racing it). In a savepoint, so that refusal
 * leaves the caller's transaction usable.
 */
export async function updateFeature(db: Db, id: string, changes: FeatureChanges): Promise<FeatureRow | undefined> {
  try {
    return await db.transaction(async (savepoint) => ((await savepoint('entitlement_features').where({ id }).update(changes).returning('*')) as FeatureRow[])[0]);
  } catch (err) {
    if ((err as { code?: string }).code === '23505' && (err as { constraint?: string }).constraint === 'entitlement_features_lookup_key') return undefined;
    throw err;
  }
}

/** The feature of that id of the account and mode, if any. */
export async function findFeatureIn(db: Db, scope: Scope, id: string): Promise<FeatureRow | undefined> {
  return (await featuresQuery(db, scope).where({ id }).first()) as FeatureRow | undefined;
}

const PRODUCT_FEATURE_COLUMNS = ['pf.id', 'pf.product_id', 'pf.feature_id', 'f.lookup_key', 'pf.created_at'];

/** The product's features, with their lookup keys (a list orders and pages them on `id`). */
export function productFeaturesQuery(db: Db, productId: string): Knex.QueryBuilder {
  const joined = db('product_features as pf').join('entitlement_features as f', 'f.id', 'pf.feature_id').where('pf.product_id', productId).select(PRODUCT_FEATURE_COLUMNS);
  return db.select('*').from(joined.as('product_features'));
}

export async function findProductFeature(db: Db, productId: string, featureId: string): Promise<ProductFeatureRow | undefined> {
  return (await productFeaturesQuery(db, productId).where({ feature_id: featureId }).first()) as ProductFeatureRow | undefined;
}

/** Attaches the feature to the product unless it is already (even by an attach racing it): whether it was attached. */
export async function insertProductFeature(db: Db, row: Omit<ProductFeatureRow, 'lookup_key'>): Promise<boolean> {
  const inserted = await db('product_features').insert(row).onConflict(['product_id', 'feature_id']).ignore().returning('id');
  return inserted.length > 0;
}

export async function deleteProductFeature(db: Db, id: string): Promise<void> {
  await db('product_features').where({ id }).delete();
}

/** The subscription `s` entitles its customer. */
const ENTITLING = `s.status = any('{${ENTITLING_STATUSES.join(',')}}'::text[])`;

/**
 * A select of `columns` over the active features of the products of the entitling subscriptions
 * of the customer row `c` (by the subscriptions' account, mode and customer index).
 */
const entitlementsOf = (c: string, columns: string) => `select ${columns}
  from subscriptions s
  join subscription_items si on si.subscription_id = s.id
  join prices p on p.id = si.price_id
  join product_features pf on pf.product_id = p.product_id
  join entitlement_features f on f.id = pf.feature_id and f.active
  where s.account_id = ${c}.account_id and s.mode = ${c}.mode and s.customer_id = ${c}.id
    and ${ENTITLING}`;

export const ACTIVE_ENTITLEMENTS_SQL = `select e.feature_id, e.lookup_key
  from customers c cross join lateral (${entitlementsOf('c', 'distinct f.id as feature_id, f.lookup_key')}) e
  where c.id = $1 order by e.lookup_key`;

/** The customer's active entitlements, by lookup key: one query. */
export async function activeEntitlements(db: Db, customerId: string): Promise<ActiveEntitlementRow[]> {
  return sql<ActiveEntitlementRow>(db, ACTIVE_ENTITLEMENTS_SQL, [customerId]);
}

export const CUSTOMERS_OF_PRODUCT_SQL = `select distinct s.customer_id from prices p
  join subscription_items si on si.price_id = p.id
  join subscriptions s on s.id = si.subscription_id
  where p.product_id = $1 and ${ENTITLING}
  order by s.customer_id`;

/** The customers a product's features entitle: those with an entitling subscription on one of its prices. */
export async function customersOfProduct(db: Db, productId: string): Promise<string[]> {
  const rows = await sql<{ customer_id: string }>(db, CUSTOMERS_OF_PRODUCT_SQL, [productId]);
  return rows.map((row) => row.customer_id);
}

/**
 * Locks the customers' summaries for this transaction (a new customer's made, empty), in one order
 * so that two transactions never wait for each other the other way round: a summary is computed
 * after its lock is held, so it sees what a transaction that held it before committed. Row locks,
 * however many customers a product has (advisory locks would fill PostgreSQL's lock table).
 */
export async function lockSummaries(trx: Knex.Transaction, customerIds: readonly string[], at: Date): Promise<void> {
  await sql(
    trx,
    `insert into entitlement_summaries as s (customer_id, lookup_keys, updated_at)
      select distinct c, '{}'::text[], $2::timestamptz from unnest($1::text[]) as c order by c
      on conflict (customer_id) do update set lookup_keys = s.lookup_keys`,
    [customerIds, at],
  );
}

export interface ChangedSummary {
  customer_id: string;
  account_id: string;
  mode: Mode;
  lookup_keys: string[];
  /** When it changed, in the customer's time. */
  at: Date;
}

// A customer's summary is there (lockSummaries made it); its keys sorted, so equal sets compare equal.
export const REFRESH_SUMMARIES_SQL = `with current as (
    select c.id as customer_id, c.account_id, c.mode, coalesce($2, t.frozen_time, $3) as at,
      coalesce((select array_agg(distinct e.lookup_key order by e.lookup_key) from (${entitlementsOf('c', 'f.lookup_key')}) e), '{}') as lookup_keys
    from customers c left join test_clocks t on t.id = c.test_clock_id
    where c.id = any($1::text[])
  ), changed as (
    update entitlement_summaries s set lookup_keys = k.lookup_keys, updated_at = k.at
    from current k where s.customer_id = k.customer_id and s.lookup_keys <> k.lookup_keys
    returning s.customer_id
  )
  select k.customer_id, k.account_id, k.mode, k.lookup_keys, k.at from current k join changed using (customer_id) order by k.customer_id`;

/**
 * The customers' summaries made current: those that changed, as they are now. `at`: when, if the
 * caller knows the customers' time; else each customer's (their test clock's, or `wallNow`).
 */
export async function refreshSummaries(trx: Knex.Transaction, customerIds: readonly string[], at: Date | null, wallNow: Date): Promise<ChangedSummary[]> {
  return sql<ChangedSummary>(trx, REFRESH_SUMMARIES_SQL, [customerIds, at, wallNow]);
}

export const CUSTOMERS_OF_FEATURE_SQL = `select distinct s.customer_id from product_features pf
  join prices p on p.product_id = pf.product_id
  join subscription_items si on si.price_id = p.id
  join subscriptions s on s.id = si.subscription_id
  where pf.feature_id = $1 and ${ENTITLING}
  order by s.customer_id`;

/** The customers a feature entitles through any product: those with an entitling subscription on a price of a product that has it. */
export async function customersOfFeature(db: Db, featureId: string): Promise<string[]> {
  return (await sql<{ customer_id: string }>(db, CUSTOMERS_OF_FEATURE_SQL, [featureId])).map((row) => row.customer_id);
}
