// Tax rates (migration 028): never edited; archived (`active` false).
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import { sql } from './sql';

type Db = Knex | Knex.Transaction;

export interface TaxRateRow {
  id: string;
  account_id: string;
  mode: Mode;
  display_name: string;
  /** numeric(7,4): a string from PostgreSQL. */
  percentage: string | number;
  inclusive: boolean;
  description: string | null;
  active: boolean;
  archived_at: Date | null;
  created_at: Date;
}

export async function insertTaxRate(db: Db, row: TaxRateRow): Promise<void> {
  await db('tax_rates').insert(row);
}

export function taxRatesQuery(db: Db, scope: { accountId: string; mode: Mode }): Knex.QueryBuilder {
  return db('tax_rates').where({ account_id: scope.accountId, mode: scope.mode });
}

/** Archives the rate (the first archiving's time stays); the row as it then is. */
export async function archiveTaxRate(db: Db, id: string, now: Date): Promise<TaxRateRow> {
  const [row] = (await db('tax_rates').where({ id }).update({ active: false, archived_at: db.raw('coalesce(archived_at, ?)', [now]) }).returning('*')) as TaxRateRow[];
  return row!;
}

/** The rates of `ids` (any account's), by id: one statement. */
export async function findTaxRates(db: Db, ids: readonly string[]): Promise<Map<string, TaxRateRow>> {
  return new Map((await sql<TaxRateRow>(db, 'select * from tax_rates where id = any($1::text[])', [ids])).map((row) => [row.id, row]));
}
