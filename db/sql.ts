// Hot-path queries (every request's key lookup, idempotency records, the monthly count): plain SQL
// with $n parameters, sent on a connection of knex's pool (or the transaction's own connection)
// as a named prepared statement, or as one simple query of several statements when a lock must be
// held inside PostgreSQL only (runStatements). Knex's query builder costs more CPU per request than
// the query itself; everything off the hot path keeps using it.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { PoolClient, QueryResult, QueryResultRow } from 'pg';

interface PooledClient {
  acquireConnection(): Promise<PoolClient>;
  releaseConnection(connection: PoolClient): Promise<void>;
}

const statementNames = new Map<string, string>();

const hashedName = (text: string) => `kasi_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = hashedName(text);
    statementNames.set(text, name);
  }
  return name;
}

/**
 * PostgreSQL refuses to run a prepared statement whose result gained or lost a column since it was
 * prepared: a `select *` after a newer process of a rolling deploy migrated. Such a statement is
 * prepared again under a new name (a name cannot be taken back on every connection that holds it).
 */
function isStaleStatement(err: unknown): boolean {
  const { code, routine } = err as { code?: string; routine?: string };
  return code === '0A000' && routine === 'RevalidateCachedQuery';
}

let renamed = 0;

/** Gives `text` a new name, unless another caller that met the same failure has done so already. */
function renameStatement(text: string, failed: string): void {
  if (statementNames.get(text) === failed) statementNames.set(text, `${hashedName(text)}_${++renamed}`);
}

export async function sql<Row extends QueryResultRow>(db: Knex | Knex.Transaction, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = db.client as PooledClient;
  const connection = await client.acquireConnection();
  const run = async (name: string) => (await connection.query<Row>({ name, text, values })).rows;
  const name = statementName(text);
  try {
    return await run(name);
  } catch (err) {
    if (!isStaleStatement(err)) throw err;
    renameStatement(text, name);
    // A transaction is aborted by the error: its caller's retry meets the new name.
    if (isTransaction(db)) throw err;
    return await run(statementName(text));
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * A string as an SQL literal, as node-postgres's escapeLiteral writes it (quotes doubled; with a
 * backslash, an E'' string with backslashes doubled), by the string's own replace: escapeLiteral
 * builds it a character at a time, which for the events' JSON was some 4 % of a renewal storm's main thread.
 */
function quoted(text: string): string {
  const doubled = text.replace(/'/g, "''");
  return text.includes('\\') ? ` E'${doubled.replace(/\\/g, '\\\\')}'` : `'${doubled}'`;
}

/** A value written into SQL text as a literal: strings (dates as ISO 8601) quoted. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
    return String(value);
  }
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `array[${value.map(literal).join(', ')}]`;
  // JSON is the caller's to write as text: String() of an object would write "[object Object]".
  if (typeof value === 'object' && !(value instanceof Date)) throw new Error('an object given as an SQL literal: write it as JSON text');
  return quoted(value instanceof Date ? value.toISOString() : String(value));
}

/**
 * The statements sent in simple queries each connection holds prepared (SQL PREPARE, run by
 * EXECUTE): planned once, where a statement written out with its values is parsed and planned
 * every time (in a renewal storm, four tenths of PostgreSQL's time). Each PREPARE goes in a query
 * of its own, so what a connection holds is known: a PREPARE stays whatever happens after it. At
 * most PREPARED_PER_CONNECTION each (a plan's memory is the server's); past it, a statement is
 * written out. A statement must be preparable: each $n typed by its context (or a cast), as for
 * `sql`.
 */
const preparedOn = new WeakMap<PoolClient, Set<string>>();
const PREPARED_PER_CONNECTION = 100;

/**
 * The types of each prepared statement's parameters, as PostgreSQL inferred them, asked once per
 * process: an array argument is written with its type (`array[]` has none of its own, and one of
 * quoted strings is a text[], which no timestamptz[] is assigned from).
 */
const parameterTypes = new Map<string, string[]>();

/**
 * Prepares `text` as `name` on the connection, in a query of its own (a prepared statement keeps
 * the whole text of the query that prepared it, and copies it at every EXECUTE): its parameters'
 * types.
 */
async function prepare(connection: PoolClient, name: string, text: string): Promise<string[]> {
  await connection.query(`prepare ${name} as ${text}`);
  let types = parameterTypes.get(text);
  if (types === undefined) {
    types = (await connection.query<{ types: string[] }>('select parameter_types::text[] as types from pg_prepared_statements where name = $1', [name])).rows[0]!.types;
    parameterTypes.set(text, types);
  }
  return types;
}

/** The EXECUTE of the statement prepared as `name`, its values written in (an array with its parameter's type). */
function executed(name: string, types: readonly string[], values: readonly unknown[]): string {
  const args = types.map((type, i) => (Array.isArray(values[i]) ? `${literal(values[i])}::${type}` : literal(values[i])));
  return `execute ${name}${args.length === 0 ? '' : `(${args.join(', ')})`}`;
}

/**
 * Around each EXECUTE: the statement runs on its generic plan, made once. PostgreSQL's default
 * plans a run afresh for its values five times, and then for as long as the generic plan's
 * estimate looks worse, which for the writes of a renewal (invoice, payment, outcome, each with
 * its event) was every time. Set for the statement alone (SET LOCAL, back to the default after
 * it): knex's queries in the same transaction keep plans made for their values (a partial index on
 * a status needs the status).
 */
const GENERIC_PLAN = 'set local plan_cache_mode = force_generic_plan';
const DEFAULT_PLAN = 'set local plan_cache_mode = default';

/**
 * Sends `parts` as one simple query: SQL as it is, or a statement by EXECUTE (prepared first on
 * this connection if need be, the first time only). The rows of each part. If it fails,
 * `onFailure` is sent on the same connection before the error is thrown. A statement gone stale is
 * prepared afresh under a new name, and, when `again` (none of the query's work was kept), the
 * query is sent again at once.
 */
async function sendSimple(db: Knex | Knex.Transaction, parts: readonly (Statement | string)[], options: { onFailure?: string; again?: boolean } = {}): Promise<QueryResultRow[][]> {
  const client = db.client as PooledClient;
  const connection = await client.acquireConnection();
  const used = new Map<string, string>();
  try {
    let prepared = preparedOn.get(connection);
    if (prepared === undefined) preparedOn.set(connection, (prepared = new Set()));
    const body: string[] = [];
    // Where each part's rows are among the statements sent.
    const rowsAt: number[] = [];
    for (const part of parts) {
      if (typeof part === 'string') {
        rowsAt.push(body.push(part) - 1);
        continue;
      }
      const base = statementName(part.text);
      const name = base.replace('kasi_', 'kasi_x_');
      let types: string[] | undefined;
      if (prepared.has(name)) types = parameterTypes.get(part.text);
      else if (prepared.size < PREPARED_PER_CONNECTION) {
        types = await prepare(connection, name, part.text);
        // Only once it is held: a failed PREPARE leaves the set true to the connection.
        prepared.add(name);
      }
      if (types === undefined) rowsAt.push(body.push(inlined(part)) - 1);
      else {
        used.set(part.text, base);
        rowsAt.push(body.push(GENERIC_PLAN, executed(name, types, part.values), DEFAULT_PLAN) - 2);
      }
    }
    const results = (await connection.query(body.join(';\n'))) as QueryResult | QueryResult[];
    const all = Array.isArray(results) ? results : [results];
    return rowsAt.map((at) => all[at]!.rows);
  } catch (err) {
    // The statement's own error is the one to report, whatever the clean-up meets.
    if (options.onFailure !== undefined) await connection.query(options.onFailure).catch(() => undefined);
    if (!isStaleStatement(err)) throw err;
    // Which statement went stale is not said: each is prepared afresh under a new name.
    for (const [text, base] of used) renameStatement(text, base);
    if (isTransaction(db) || options.again !== true) throw err;
  } finally {
    await client.releaseConnection(connection);
  }
  return sendSimple(db, parts, { ...options, again: false });
}

/** Whether `db` is a transaction (else the pool). */
export function isTransaction(db: Knex | Knex.Transaction): db is Knex.Transaction {
  return (db as { isTransaction?: boolean }).isTransaction === true;
}

/** A statement and the values of its $n. */
export interface Statement {
  text: string;
  values: readonly unknown[];
  /**
   * It takes a row many transactions wait for (an account's invoice counter): among a
   * transaction's last writes it goes after the others (services/run.ts inTransaction), so the
   * row is held for as short a time as can be.
   */
  contended?: boolean;
}

/**
 * `update <table> set … where id = $1<condition>`, setting `changes` ($2 on; an object, a JSON
 * column's value, written as JSON text, as node-postgres writes it).
 */
export function updateByIdStatement(table: string, id: string, changes: Record<string, unknown>, condition = ''): Statement {
  const columns = Object.keys(changes);
  const value = (v: unknown) => (v !== null && typeof v === 'object' && !(v instanceof Date) && !Array.isArray(v) ? JSON.stringify(v) : v);
  return {
    text: `update ${table} set ${columns.map((column, i) => `"${column}" = $${i + 2}`).join(', ')} where id = $1${condition}`,
    values: [id, ...columns.map((column) => value(changes[column]))],
  };
}

/**
 * Runs `statements` in one round trip: one alone as a prepared statement (sql), several as one
 * simple query. Outside a transaction they are then one implicit transaction (all or none of
 * them), each statement seeing what committed before it began and what those before it wrote,
 * and a lock one of them takes is held inside PostgreSQL only, never across a round trip to this
 * process, whose event loop, under load, would keep every other holder of the lock waiting. A
 * simple query takes no parameters, so each value is written in as a literal. The rows of each,
 * in order.
 */
export async function runStatements(db: Knex | Knex.Transaction, statements: readonly Statement[]): Promise<QueryResultRow[][]> {
  if (statements.length === 0) return [];
  if (statements.length === 1) return [await sql(db, statements[0]!.text, [...statements[0]!.values])];
  // One implicit transaction: a failure keeps none of them, so a stale statement's query may go again.
  return sendSimple(db, statements, { again: true });
}

/**
 * Runs `statements` in one round trip, each in a transaction of its own (one simple query, each
 * statement between its own BEGIN and COMMIT): what one locks is held for that statement only, not
 * until the last has run. The first that fails stops those after it (those before stay done), so
 * they must be safe to run again. The rows of each, in order.
 */
export async function runEach(db: Knex, statements: readonly Statement[]): Promise<QueryResultRow[][]> {
  // Its COMMITs would end a caller's transaction early.
  if (isTransaction(db)) throw new Error('runEach runs its own transactions: call it outside one');
  if (statements.length <= 1) return runStatements(db, statements);
  // The failing statement's transaction is left open, aborted: ended before the connection goes back.
  const results = await sendSimple(db, statements.flatMap((statement) => ['begin', statement, 'commit']), { onFailure: 'rollback' });
  return statements.map((_statement, i) => results[3 * i + 1]!);
}

/** The statement's text with each $n written in as a literal. */
function inlined({ text, values }: Statement): string {
  return text.replace(/\$(\d+)/g, (_match, n: string) => literal(values[Number(n) - 1]));
}

/**
 * Runs `statements` as the last writes of `trx`, sent with the transaction's COMMIT in one simple
 * query: a lock they take is held inside PostgreSQL only, never across a round trip to this
 * process. The connection then goes on in a read-only transaction, which knex's own COMMIT ends: a
 * write after these fails rather than land outside the transaction they ended. Their rows, in order.
 */
export async function commitWith(trx: Knex.Transaction, statements: readonly Statement[]): Promise<QueryResultRow[][]> {
  const results = await sendSimple(trx, [...statements, 'commit', 'begin read only']);
  return results.slice(0, statements.length);
}
