// Read benchmarks: GET /v1/payments/{id} and GET /v1/payments?limit=25 on Kasi (a secret key; the
// rate limit, the key, the path's id or the query's validation, the read, the view and the
// metrics; the bench server logs nothing), each against the bare Koa + pg server running the same
// query and answering its rows as read, as bench/versus-bare.ts measures. The account's payments
// are seeded as the refund benchmark seeds them (2,000 succeeded payments); the reads of one
// payment take them in turn. Target: at least 80% of the bare server's throughput, p99 under 25 ms
// at half the maximum rate.
// Alone: node --import tsx bench/payments.ts
import { createMerchant } from '../db/merchants';
import { benchDatabase, type BenchDatabase } from './database';
import { seedPayments } from './refunds';
import { measureAgainstBare } from './versus-bare';
import { runAsCommand } from './command';

export async function runPaymentReadBench(given?: BenchDatabase): Promise<void> {
  const database = given ?? (await benchDatabase());
  try {
    const { account, keys } = await createMerchant(database.knex, { name: 'Bench reads', now: new Date() });
    const payments = await seedPayments(database, account.id);
    const headers = { authorization: `Bearer ${keys.sk_test}` };
    // Each server takes the payments in turn from the first.
    const onePayment = (url: string) => {
      let next = 0;
      return { url: `${url}/v1/payments/${payments[0]}`, path: () => `/v1/payments/${payments[next++ % payments.length]}`, headers };
    };
    const list = (url: string) => ({ url: `${url}/v1/payments?limit=25`, headers });
    const reads = [
      { label: 'Kasi GET /v1/payments/{id}', title: 'GET /v1/payments/{id} (one payment) vs the bare server reading the same row', request: onePayment },
      { label: 'Kasi GET /v1/payments', title: 'GET /v1/payments?limit=25 (a page of 25) vs the bare server reading the same rows', request: list },
    ];
    for (const read of reads) {
      await measureAgainstBare(database, { ...read, baseline: { label: 'bare Koa + pg (same read)', request: read.request }, ratio: 0.8, p99Ms: 25 });
    }
  } finally {
    if (!given) await database.close();
  }
}

if (require.main === module) runAsCommand(() => runPaymentReadBench());
