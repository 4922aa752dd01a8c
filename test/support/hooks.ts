// Mocha global fixtures, run once in the main mocha process (before the parallel workers start,
// which inherit the environment set here): one embedded PostgreSQL for the whole run (unless
// DATABASE_URL names a server) with a migrated template database that each test file copies.
import { startTestDatabaseServer, type TestDatabaseServer } from './database';

let server: TestDatabaseServer | undefined;

export async function mochaGlobalSetup(): Promise<void> {
  server = await startTestDatabaseServer();
  process.env.KASI_TEST_ADMIN_URL = server.adminUrl;
  process.env.KASI_TEST_TEMPLATE = server.templateName;
}

export async function mochaGlobalTeardown(): Promise<void> {
  await server?.stop();
}
