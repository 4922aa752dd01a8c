// The benchmark's database: a fresh one on DATABASE_URL's server or on an embedded PostgreSQL,
// migrated, and dropped at the end.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { connect, migrate } from '../db/connection';
import { ensureDatabase, withDatabase } from '../db/database-url';
import { findOrStartEmbeddedPostgres } from '../db/embedded-postgres';

export interface BenchDatabase {
  url: string;
  knex: Knex;
  /** One key for every bench server on this database (a server with another refuses to start). */
  secretKey: Buffer;
  /** What each bench server's environment needs to use this database. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function benchDatabase(): Promise<BenchDatabase> {
  const server = process.env.DATABASE_URL
    ? { adminUrl: withDatabase(process.env.DATABASE_URL, 'postgres'), stop: async () => undefined }
    : await findOrStartEmbeddedPostgres(mkdtempSync(path.join(os.tmpdir(), 'kasi-bench-pg-')), { ephemeral: true });
  const name = `kasi_bench_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(server.adminUrl, name);
  const url = withDatabase(server.adminUrl, name);
  const knex = connect(url, 4);
  await migrate(knex);
  const secretKey = randomBytes(32);
  return {
    url,
    knex,
    secretKey,
    env: { DATABASE_URL: url, KASI_SECRET_KEY: secretKey.toString('base64') },
    async close() {
      await knex.destroy();
      const admin = connect(server.adminUrl, 1);
      await admin.raw(`drop database if exists ${name} with (force)`);
      await admin.destroy();
      await server.stop();
    },
  };
}
