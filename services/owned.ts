// Loading an object a request names (in its path or its body): another account's object does not
// exist for the caller; this account's object in the other mode answers 404 mode_mismatch. Every
// request for one object starts here, so the objects of one table named by requests at the same
// moment are read together, one batch at a time (db/batched.ts); in a transaction, on its own.
import type { Knex } from 'knex';
import { ApiError } from '../domain/errors';
import { batched, batcherOf } from '../db/batched';
import { isTransaction, sql } from '../db/sql';
import type { AccountScope } from './context';

type Owned = { id: string; account_id: string; mode: string };

/** The rows of `ids` in `table`, in that order (undefined for an id with none): one statement. */
async function rowsByIds(db: Knex | Knex.Transaction, table: string, ids: readonly string[]): Promise<(Owned | undefined)[]> {
  const rows = new Map((await sql<Owned>(db, `select * from ${table} where id = any($1::text[])`, [ids])).map((row) => [row.id, row]));
  return ids.map((id) => rows.get(id));
}

/**
 * A read of one thing by key, outside a transaction batched with the same reads of the requests
 * made at the same moment (one statement for them all, as findOwned's); in a transaction, on its own.
 */
export function batchedRead<Res>(db: Knex | Knex.Transaction, name: string, run: (db: Knex | Knex.Transaction, keys: string[]) => Promise<Res[]>): (key: string) => Promise<Res> {
  if (isTransaction(db)) return async (key) => (await run(db, [key]))[0]!;
  return batcherOf(db, name, () => batched((keys: string[]) => run(db, keys), 50, 1));
}

export async function findOwned<Row extends { mode: string }>(
  db: Knex | Knex.Transaction,
  table: string,
  id: string,
  caller: AccountScope,
  noun: string,
): Promise<Row> {
  const row = isTransaction(db)
    ? (await rowsByIds(db, table, [id]))[0]
    : await batcherOf(db, `owned ${table}`, () => batched((ids: string[]) => rowsByIds(db, table, ids), 50, 1))(id);
  if (row === undefined || row.account_id !== caller.account.id) throw new ApiError('NOT_FOUND', `No ${noun} with id ${id}.`);
  if (row.mode !== caller.mode) {
    throw new ApiError('mode_mismatch', `The ${noun} ${id} is a ${row.mode} object: use a ${row.mode} key.`);
  }
  return row as unknown as Row;
}
