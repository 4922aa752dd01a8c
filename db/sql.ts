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
  return (err as { code?: string }).code === '0A000' && /cached plan must not change result type/.test((err as Error).message);
}

let renamed = 0;

function renameStatement(text: string): void {
  statementNames.set(text, `${hashedName(text)}_${++renamed}`);
}

export async function sql<Row extends QueryResultRow>(db: Knex | Knex.Transaction, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = db.client as PooledClient;
  const connection = await client.acquireConnection();
  const run = async () => (await connection.query<Row>({ name: statementName(text), text, values })).rows;
  try {
    return await run();
  } catch (err) {
    if (!isStaleStatement(err)) throw err;
    renameStatement(text);
    // A transaction is aborted by the error: its caller's retry meets the new name.
    if (isTransaction(db)) throw err;
    return await run();
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
 * every time (in a renewal storm, four tenths of PostgreSQL's time). A connection whose query
 * failed is looked up again before its next one: a PREPARE stays whatever happens after it. At
 * most PREPARED_PER_CONNECTION each (a plan's memory is the server's); past it, a statement is
 * written out.
 */
const preparedOn = new WeakMap<PoolClient, Set<string>>();
const unsure = new WeakSet<PoolClient>();
const PREPARED_PER_CONNECTION = 100;
const PREPARED_PREFIX = 'kasi_x_';

/**
 * The types of each prepared statement's parameters, as PostgreSQL inferred them, asked once per
 * process: an array argument is written with its type (`array[]` has none of its own, and one of
 * quoted strings is a text[], which no timestamptz[] is assigned from).
 */
const parameterTypes = new Map<string, string[]>();

async function preparedStatements(connection: PoolClient): Promise<Set<string>> {
  let prepared = preparedOn.get(connection);
  if (prepared === undefined || unsure.has(connection)) {
    const { rows } = await connection.query<{ name: string }>('select name from pg_prepared_statements where starts_with(name, $1)', [PREPARED_PREFIX]);
    prepared = new Set(rows.map((row) => row.name));
    preparedOn.set(connection, prepared);
    unsure.delete(connection);
  }
  return prepared;
}

/** Prepares `text` as `name` on the connection, in a query of its own: a prepared statement keeps the whole text of the query that prepared it, and copies it at every EXECUTE. */
async function prepare(connection: PoolClient, name: string, text: string): Promise<void> {
  await connection.query(`prepare ${name} as ${text}`);
  if (parameterTypes.has(text)) return;
  const { rows } = await connection.query<{ types: string[] }>('select parameter_types::text[] as types from pg_prepared_statements where name = $1', [name]);
  parameterTypes.set(text, rows[0]!.types);
}

function executed(name: string, { text, values }: Statement): string {
  const types = parameterTypes.get(text)!;
  if (types.length === 0) return `execute ${name}`;
  return `execute ${name}(${types.map((type, i) => (Array.isArray(values[i]) ? `${literal(values[i])}::${type}` : literal(values[i]))).join(', ')})`;
}

/**
 * Sends `parts` as one simple query: SQL as it is, or a statement by EXECUTE (prepared first on
 * this connection if need be, the first time only). The rows of each part. If it fails,
 * `onFailure` is sent on the same connection before the error is thrown (or, for a statement gone
 * stale, before it is sent again).
 */
async function sendSimple(db: Knex | Knex.Transaction, parts: readonly (Statement | string)[], onFailure?: string, retried = false): Promise<QueryResultRow[][]> {
  const client = db.client as PooledClient;
  const connection = await client.acquireConnection();
  const texts: string[] = [];
  try {
    const prepared = await preparedStatements(connection);
    const names = new Map<Statement, string>();
    for (const part of parts) {
      if (typeof part === 'string') continue;
      const name = statementName(part.text).replace('kasi_', PREPARED_PREFIX);
      if (!prepared.has(name)) {
        if (prepared.size >= PREPARED_PER_CONNECTION) continue;
        prepared.add(name);
        await prepare(connection, name, part.text);
      }
      texts.push(part.text);
      names.set(part, name);
    }
    const body = parts.map((part) => (typeof part === 'string' ? part : names.has(part) ? executed(names.get(part)!, part) : inlined(part)));
    const results = (await connection.query(body.join(';\n'))) as QueryResult | QueryResult[];
    return (Array.isArray(results) ? results : [results]).map((result) => result.rows);
  } catch (err) {
    unsure.add(connection);
    // The statement's own error is the one to report, whatever the clean-up meets.
    if (onFailure !== undefined) await connection.query(onFailure).catch(() => undefined);
    if (!isStaleStatement(err)) throw err;
    // Which statement went stale is not said: each is prepared afresh under a new name. Outside a
    // transaction, at once: those that ran before the failure are safe to run again (runStatements:
    // none of them is kept; runEach: its statements must be).
    for (const text of texts) {
      renameStatement(text);
      parameterTypes.delete(text);
    }
    if (isTransaction(db) || retried) throw err;
  } finally {
    await client.releaseConnection(connection);
  }
  return sendSimple(db, parts, onFailure, true);
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
  return sendSimple(db, statements);
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
  const results = await sendSimple(db, statements.flatMap((statement) => ['begin', statement, 'commit']), 'rollback');
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
