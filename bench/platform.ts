// Platform benchmark: an authenticated GET /v1/account and an idempotent POST /v1/customers on
// Kasi, side by side with a bare Koa + pg server doing the same queries, in one run. Target: the
// platform keeps at least 70% of the bare server's throughput. Both servers run at once in child
// processes; the load alternates between them for 3 rounds and each reports its median round.
import { createMerchant } from '../db/merchants';
import type { BenchDatabase } from './database';
import { interleaved, load, printComparison, startServer, stopServer } from './load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = 3;
const CONNECTIONS = 10;

export async function runPlatformBench(database: BenchDatabase): Promise<void> {
  const { keys } = await createMerchant(database.knex, { name: 'Bench', now: new Date() });
  const env = database.env;
  const headers = { authorization: `Bearer ${keys.sk_test}`, 'content-type': 'application/json' };
  let emails = 0;
  const body = () => JSON.stringify({ email: `bench-${process.pid}-${++emails}@example.com` });
  const kasi = await startServer('servers/kasi.ts', env);
  const bare = await startServer('servers/bare.ts', env);
  try {
    const account = (url: string) => (label: string) => load(label, { url: `${url}/v1/account`, headers, seconds: SECONDS, connections: CONNECTIONS });
    const post = (url: string) => (label: string) =>
      load(label, { url: `${url}/v1/customers`, method: 'POST', headers, body, idempotent: true, seconds: SECONDS, connections: CONNECTIONS });
    // A short warm-up so both are measured hot.
    for (const url of [kasi.url, bare.url]) await load('warm-up', { url: `${url}/v1/account`, headers, seconds: 1, connections: CONNECTIONS });
    const [kasiAccount, bareAccount] = await interleaved([{ label: 'Kasi', run: account(kasi.url) }, { label: 'bare Koa + pg', run: account(bare.url) }], ROUNDS);
    const [kasiPost, barePost] = await interleaved([{ label: 'Kasi', run: post(kasi.url) }, { label: 'bare Koa + pg', run: post(bare.url) }], ROUNDS);
    printComparison('GET /v1/account (authenticated)', kasiAccount!, bareAccount!, 0.7);
    printComparison('POST /v1/customers (Idempotency-Key, one new customer each)', kasiPost!, barePost!, 0.7);
  } finally {
    await stopServer(kasi.child);
    await stopServer(bare.child);
  }
}
