// Prices: how much a product costs, how often, by which scheme (domain/pricing.ts). Never edited
// once made; archiving turns one off for new subscriptions.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { BillingInterval } from '../domain/billing-periods';
import type { BillingScheme, PriceTerms, Tier, TiersMode, UsageType } from '../domain/pricing';
import type { ProductRow } from './products';

type Db = Knex | Knex.Transaction;

export interface PriceRow {
  id: string;
  account_id: string;
  mode: Mode;
  product_id: string;
  unit_amount_cents: string | number;
  interval: BillingInterval;
  interval_count: number;
  nickname: string | null;
  active: boolean;
  billing_scheme: BillingScheme;
  tiers_mode: TiersMode | null;
  tiers: Tier[] | null;
  package_size: number | null;
  usage_type: UsageType;
  meter_id: string | null;
  created_at: Date;
  archived_at: Date | null;
}

/** A price with what its public object shows of its product. */
export interface PricedRow extends PriceRow {
  product_name: string;
  product_description: string | null;
  product_active: boolean;
}

export async function insertPrice(db: Db, row: PriceRow): Promise<void> {
  await db('prices').insert({ ...row, tiers: row.tiers === null ? null : JSON.stringify(row.tiers) });
}

export function pricedRow(price: PriceRow, product: Pick<ProductRow, 'name' | 'description' | 'active'>): PricedRow {
  return { ...price, product_name: product.name, product_description: product.description, product_active: product.active };
}

/**
 * Prices joined to their products, as one relation whose columns are a price's and `product_*`:
 * lists page it on `id` (a subquery, so the id is the price's alone), and PostgreSQL flattens it
 * onto the prices index.
 */
function priced(db: Db): Knex.QueryBuilder {
  return db('prices as p')
    .join('products as d', 'd.id', 'p.product_id')
    .select('p.*', 'd.name as product_name', 'd.description as product_description', 'd.active as product_active');
}

export async function findPricedRow(db: Db, id: string): Promise<PricedRow | undefined> {
  return (await priced(db).where('p.id', id).first()) as PricedRow | undefined;
}

/** The prices of `ids` with their products, in that order (undefined for an id with none): one statement. */
export async function findPricedRows(db: Db, ids: readonly string[]): Promise<(PricedRow | undefined)[]> {
  const rows = new Map(((await priced(db).whereIn('p.id', ids)) as PricedRow[]).map((row) => [row.id, row]));
  return ids.map((id) => rows.get(id));
}

/** An account's prices of one mode, all or only the active (or archived) ones, with their products. */
export function pricesQuery(db: Db, scope: { accountId: string; mode: Mode }, active?: boolean): Knex.QueryBuilder {
  const rows = priced(db).where({ 'p.account_id': scope.accountId, 'p.mode': scope.mode });
  if (active !== undefined) void rows.where('p.active', active);
  return db.select('*').from(rows.as('priced'));
}

/** Archives the price (kept archived from the first time: `archived_at` stays). */
export async function archivePrice(db: Db, id: string, now: Date): Promise<void> {
  await db('prices').where({ id }).update({ active: false, archived_at: db.raw('coalesce(archived_at, ?)', [now]) });
}

/** The price's terms, as domain/pricing.ts prices a quantity with them. */
export function termsOf(row: PriceRow): PriceTerms {
  return {
    billingScheme: row.billing_scheme,
    unitAmountCents: Number(row.unit_amount_cents),
    tiersMode: row.tiers_mode,
    tiers: row.tiers,
    packageSize: row.package_size,
    usageType: row.usage_type,
  };
}
