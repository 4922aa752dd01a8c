// Hot-path queries (every request's key lookup, idempotency records, the monthly count): plain SQL
// with $n parameters, sent on a connection of knex's pool (or the transaction's own connection)
// as a named prepared statement. Knex's query builder costs more CPU per request than the query
// itself; everything off the hot path keeps using it.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { PoolClient, QueryResultRow } from 'pg';

interface PooledClient {
  acquireConnection(): Promise<PoolClient>;
  releaseConnection(connection: PoolClient): Promise<void>;
}

const statementNames = new Map<string, string>();

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `kasi_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    statementNames.set(text, name);
  }
  return name;
}

export async function sql<Row extends QueryResultRow>(db: Knex | Knex.Transaction, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = db.client as PooledClient;
  const connection = await client.acquireConnection();
  try {
    return (await connection.query<Row>({ name: statementName(text), text, values })).rows;
  } finally {
    await client.releaseConnection(connection);
  }
}
