// Opening the database: DATABASE_URL, or the embedded PostgreSQL under KASI_DATA_DIR; then the
// migrations, so the server, the CLI and the tests always work on the current schema.
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { findOrStartEmbeddedPostgres, type EmbeddedDatabaseServer } from './embedded-postgres';
import { ensureDatabase, withDatabase } from './database-url';
import { migrationSource } from './migrations';

// bigint columns (amounts in cents, counts) as numbers; they stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`bigint out of range: ${value}`);
  return n;
});

export const EMBEDDED_DATABASE = 'kasi';

export interface Database {
  knex: Knex;
  url: string;
  /** The embedded PostgreSQL's KASI_DATA_DIR when this process started it: it stops on close. */
  startedEmbeddedIn?: string;
  close(): Promise<void>;
}

/**
 * knex's own warnings (a failed connection attempt, with its stack) go to stderr as one line:
 * knex prints them on stdout by default, which breaks `kasi --json` and the server's JSON log.
 * The error itself still reaches the caller.
 */
const knexLog = (line: unknown) => process.stderr.write(`knex: ${String(line).split('\n')[0]}\n`);

export function connect(url: string, poolMax = 10): Knex {
  return knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: poolMax }, log: { warn: knexLog, error: knexLog, deprecate: knexLog, debug: knexLog } });
}

/**
 * Applies the pending migrations. knex's own lock is a row of a table it creates first, so
 * processes started at once on a new database (two servers, a server and `kasi`) race to create
 * it and the losers fail; an advisory lock held meanwhile, on a connection of its own outside the
 * pool, makes them take turns, each finding what the one before applied.
 */
export async function migrate(knex: Knex): Promise<string[]> {
  const lock = new pg.Client(knex.client.config.connection as string);
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock(hashtext($1))', ['kasi:migrations']);
    const [, applied] = (await knex.migrate.latest({ migrationSource })) as [number, string[]];
    return applied;
  } finally {
    // Closing the session releases its lock.
    await lock.end();
  }
}

/**
 * The migrations applied and pending, by name, read without writing: knex's own migrate.list()
 * creates its bookkeeping tables on a database that has none.
 */
export async function migrationStatus(knex: Knex): Promise<{ applied: string[]; pending: string[] }> {
  const all = await migrationSource.getMigrations([]);
  const applied: string[] = (await knex.schema.hasTable('knex_migrations')) ? await knex('knex_migrations').orderBy('id').pluck('name') : [];
  return { applied, pending: all.filter((name) => !applied.includes(name)) };
}

export async function openDatabase(options: {
  databaseUrl: string | undefined;
  dataDir: string;
  log?: (line: string) => void;
  poolMax?: number;
  /** false: open as it is (`kasi migrate --status` reports and must not apply). */
  migrate?: boolean;
}): Promise<Database> {
  let embedded: EmbeddedDatabaseServer | undefined;
  let url = options.databaseUrl;
  if (!url) {
    embedded = await findOrStartEmbeddedPostgres(options.dataDir, { log: options.log });
    await ensureDatabase(embedded.adminUrl, EMBEDDED_DATABASE);
    url = withDatabase(embedded.adminUrl, EMBEDDED_DATABASE);
  }
  const knex = connect(url, options.poolMax);
  try {
    if (options.migrate !== false) await migrate(knex);
  } catch (err) {
    await knex.destroy();
    await embedded?.stop();
    throw err;
  }
  return {
    knex,
    url,
    startedEmbeddedIn: embedded?.owned ? options.dataDir : undefined,
    close: async () => {
      await knex.destroy();
      await embedded?.stop();
    },
  };
}
