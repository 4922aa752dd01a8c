// Products: what a merchant sells. Prices (db/prices.ts) belong to one.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';

type Db = Knex | Knex.Transaction;

export interface ProductRow {
  id: string;
  account_id: string;
  mode: Mode;
  name: string;
  description: string | null;
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

export async function insertProduct(db: Db, row: ProductRow): Promise<void> {
  await db('products').insert(row);
}

export async function findProduct(db: Db, id: string): Promise<ProductRow | undefined> {
  return (await db<ProductRow>('products').where({ id }).first()) as ProductRow | undefined;
}

export type ProductChanges = Partial<Pick<ProductRow, 'name' | 'description' | 'active'>>;

export async function updateProduct(db: Db, id: string, changes: ProductChanges & { updated_at: Date }): Promise<ProductRow> {
  const [row] = (await db('products').where({ id }).update(changes).returning('*')) as ProductRow[];
  return row!;
}

/** An account's products of one mode, all or only the active (or archived) ones. */
export function productsQuery(db: Db, scope: { accountId: string; mode: Mode }, active?: boolean): Knex.QueryBuilder {
  const rows = db<ProductRow>('products').where({ account_id: scope.accountId, mode: scope.mode });
  return active === undefined ? rows : rows.where({ active });
}
