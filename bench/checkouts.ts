// Checkout benchmark: POST /v1/checkouts on Kasi (a publishable key, an Idempotency-Key each, the
// checkout and payment rows, and the lifetime workflow started on the embedded engine), against
// the bare Koa + pg server's POST /v1/customers (one insert, no platform), in one run. Method:
// both servers in child processes; 1 s warm-up; SECONDS of closed-loop load with CONNECTIONS
// connections gives each maximum rate; then Kasi again at half its maximum rate (open loop,
// autocannon's overallRate) for the p99 that counts. Target: at least 50% of the bare server's
// throughput, p99 under 50 ms at half the maximum rate.
// Alone: node --import tsx bench/checkouts.ts
import { createMerchant } from '../db/merchants';
import { benchDatabase, type BenchDatabase } from './database';
import { load, printComparison, startServer, stopServer } from './load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 10;

export async function runCheckoutBench(given?: BenchDatabase): Promise<void> {
  const database = given ?? (await benchDatabase());
  try {
    const { keys } = await createMerchant(database.knex, { name: 'Bench', now: new Date() });
    const env = { DATABASE_URL: database.url };
    const checkoutBody = JSON.stringify({ amountCents: 350000, description: 'Bench tea', reference: 'bench' });
    let emails = 0;
    const customerBody = () => JSON.stringify({ email: `checkout-bench-${process.pid}-${++emails}@example.com` });

    const kasi = await startServer('servers/kasi.ts', env);
    let max;
    let half;
    try {
      const headers = { authorization: `Bearer ${keys.pk_test}`, 'content-type': 'application/json' };
      const run = (seconds: number, rate?: number) =>
        load('Kasi POST /v1/checkouts', { url: `${kasi.url}/v1/checkouts`, method: 'POST', headers, body: () => checkoutBody, idempotent: true, seconds, connections: CONNECTIONS, rate });
      await run(1);
      max = await run(SECONDS);
      half = await run(SECONDS, Math.max(1, Math.round(max.requestsPerSecond / 2)));
    } finally {
      await stopServer(kasi.child);
    }
    const bare = await startServer('servers/bare.ts', env);
    let baseline;
    try {
      const headers = { authorization: `Bearer ${keys.sk_test}`, 'content-type': 'application/json' };
      await load('bare Koa + pg', { url: `${bare.url}/v1/customers`, method: 'POST', headers, body: customerBody, seconds: 1, connections: CONNECTIONS });
      baseline = await load('bare Koa + pg (insert)', { url: `${bare.url}/v1/customers`, method: 'POST', headers, body: customerBody, seconds: SECONDS, connections: CONNECTIONS });
    } finally {
      await stopServer(bare.child);
    }
    printComparison('POST /v1/checkouts (Idempotency-Key, lifetime workflow started) vs the bare server', max, baseline, 0.5);
    console.log(`  at half the maximum rate (${Math.round(max.requestsPerSecond / 2)} req/s): ${half.requestsPerSecond.toFixed(0)} req/s   p50 ${half.p50} ms   p99 ${half.p99} ms   errors ${half.errors}: p99 under 50 ms ${half.p99 < 50 ? 'met' : 'NOT met'}`);
  } finally {
    if (!given) await database.close();
  }
}

if (require.main === module) {
  runCheckoutBench().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
