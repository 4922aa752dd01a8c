// Loading an object a request names (in its path or its body): another account's object does not
// exist for the caller; this account's object in the other mode answers 404 mode_mismatch.
import type { Knex } from 'knex';
import { ApiError } from '../domain/errors';
import { sql } from '../db/sql';
import type { AccountScope } from './context';

export async function findOwned<Row extends { mode: string }>(
  db: Knex | Knex.Transaction,
  table: string,
  id: string,
  caller: AccountScope,
  noun: string,
): Promise<Row> {
  // A named prepared statement per table (db/sql.ts): every request for one object starts here.
  const [row] = await sql<Row>(db, `select * from ${table} where id = $1 and account_id = $2`, [id, caller.account.id]);
  if (!row) throw new ApiError('NOT_FOUND', `No ${noun} with id ${id}.`);
  if (row.mode !== caller.mode) {
    throw new ApiError('mode_mismatch', `The ${noun} ${id} is a ${row.mode} object: use a ${row.mode} key.`);
  }
  return row;
}
