// Platform benchmark: an authenticated GET /v1/account and an idempotent POST /v1/customers on
// Kasi, side by side with a bare Koa + pg server doing the same queries, in one run. Target: the
// platform keeps at least 70% of the bare server's throughput.
import { createMerchant } from '../db/merchants';
import type { BenchDatabase } from './database';
import { load, printComparison, startServer, stopServer } from './load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 10;

export async function runPlatformBench(database: BenchDatabase): Promise<void> {
  const { keys } = await createMerchant(database.knex, { name: 'Bench', now: new Date() });
  const env = { DATABASE_URL: database.url };
  const headers = { authorization: `Bearer ${keys.sk_test}`, 'content-type': 'application/json' };
  let emails = 0;
  const body = () => JSON.stringify({ email: `bench-${process.pid}-${++emails}@example.com` });
  const results = [];
  for (const [label, script] of [['Kasi', 'servers/kasi.ts'], ['bare Koa + pg', 'servers/bare.ts']] as const) {
    const server = await startServer(script, env);
    try {
      // A short warm-up so both are measured hot.
      await load(label, { url: `${server.url}/v1/account`, headers, seconds: 1, connections: CONNECTIONS });
      const account = await load(label, { url: `${server.url}/v1/account`, headers, seconds: SECONDS, connections: CONNECTIONS });
      const post = await load(label, { url: `${server.url}/v1/customers`, method: 'POST', headers, body, idempotent: true, seconds: SECONDS, connections: CONNECTIONS });
      results.push({ account, post });
    } finally {
      await stopServer(server.child);
    }
  }
  const [kasi, bare] = results as [(typeof results)[0], (typeof results)[0]];
  printComparison('GET /v1/account (authenticated)', kasi.account, bare.account, 0.7);
  printComparison('POST /v1/customers (Idempotency-Key, one new customer each)', kasi.post, bare.post, 0.7);
}
