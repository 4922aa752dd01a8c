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

/**
 * A transaction on one of knex's pooled connections, for work that reaches the database only
 * through sql(). Knex's own transaction builds a knex instance per call (about 0.15 ms of CPU, a
 * tenth of the hottest write's share of the main thread); the handle given to `work` serves sql()
 * and refuses everything else, so a handler that reaches for the query builder fails loudly.
 */
export async function sqlTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const client = db.client as PooledClient;
  const connection = await client.acquireConnection();
  try {
    await connection.query('begin');
    const result = await work(sqlOnly(connection));
    await connection.query('commit');
    return result;
  } catch (err) {
    // A connection that cannot even roll back is broken: knex destroys it on release instead of
    // pooling it (its own flag for a connection that failed).
    await connection.query('rollback').catch((broken: unknown) => {
      (connection as PoolClient & { __knex__disposed?: unknown }).__knex__disposed = broken;
    });
    throw err;
  } finally {
    await client.releaseConnection(connection);
  }
}

function sqlOnly(connection: PoolClient): Knex.Transaction {
  const client: PooledClient = { acquireConnection: () => Promise.resolve(connection), releaseConnection: () => Promise.resolve() };
  const refuse = (what: string): never => {
    throw new Error(`${what} on a transaction that only sql() may use (the route declares transaction: 'sql')`);
  };
  return new Proxy(() => undefined, {
    get: (_, property) => (property === 'client' ? client : refuse(`db.${String(property)}`)),
    apply: () => refuse('a query builder call'),
  }) as unknown as Knex.Transaction;
}
