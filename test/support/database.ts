// A fresh, migrated database for each test file, dropped afterwards. The server is DATABASE_URL's
// when set, else an embedded PostgreSQL in a temporary folder. The global fixture (hooks.ts)
// starts it once per run and migrates a template; each file's database is a copy of the template.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connect, migrate } from '../../db/connection';
import { withDatabase } from '../../db/database-url';
import { findOrStartEmbeddedPostgres } from '../../db/embedded-postgres';

export interface TestDatabaseServer {
  adminUrl: string;
  templateName: string;
  stop(): Promise<void>;
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function startTestDatabaseServer(): Promise<TestDatabaseServer> {
  let adminUrl: string;
  let stopServer = async () => undefined as void;
  if (process.env.DATABASE_URL) {
    adminUrl = withDatabase(process.env.DATABASE_URL, 'postgres');
  } else {
    const server = await findOrStartEmbeddedPostgres(mkdtempSync(path.join(os.tmpdir(), 'kasi-test-pg-')), { ephemeral: true });
    adminUrl = server.adminUrl;
    stopServer = server.stop;
  }
  const templateName = `kasi_template_${randomBytes(4).toString('hex')}`;
  await adminQuery(adminUrl, `create database ${templateName}`);
  const knex = connect(withDatabase(adminUrl, templateName), 1);
  await migrate(knex);
  await knex.destroy();
  return {
    adminUrl,
    templateName,
    stop: async () => {
      await adminQuery(adminUrl, `drop database if exists ${templateName} with (force)`);
      await stopServer();
    },
  };
}

function testServer(): { adminUrl: string; templateName: string } {
  const { KASI_TEST_ADMIN_URL: adminUrl, KASI_TEST_TEMPLATE: templateName } = process.env;
  if (!adminUrl || !templateName) {
    throw new Error('no test database server: run mocha with --require test/support/hooks.ts (as .mocharc.json does)');
  }
  return { adminUrl, templateName };
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function freshDatabase(): Promise<TestDatabase> {
  const { adminUrl, templateName } = testServer();
  const name = `kasi_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `create database ${name} template ${templateName}`);
  return {
    url: withDatabase(adminUrl, name),
    drop: () => adminQuery(adminUrl, `drop database if exists ${name} with (force)`),
  };
}
