// Checkout benchmark: POST /v1/checkouts on Kasi (a publishable key, an Idempotency-Key each, the
// checkout and payment rows, and the lifetime workflow started on the embedded engine), against
// the bare Koa + pg server's POST /v1/customers (one insert, no platform), as bench/versus-bare.ts
// measures (Kasi has the SDK, the engine and the platform to compile in its warm-up: its first
// seconds run at about half speed). Medians, because one event can land on whichever round or run
// is under way: on this shared 2-core virtual machine, another tenant's burst (seen as CPU steal)
// that stalls every process at once; and in the first half-rate run, the mark-compact the
// closed-loop rounds' heap growth called for (bench/HISTORY.md). Target: at least 75% of the bare
// server's throughput, p99 under 25 ms at half the maximum rate.
// Alone: node --import tsx bench/checkouts.ts
import { createMerchant } from '../db/merchants';
import { benchDatabase, type BenchDatabase } from './database';
import { bareInsert, measureAgainstBare } from './versus-bare';
import { runAsCommand } from './command';

export async function runCheckoutBench(given?: BenchDatabase): Promise<void> {
  const database = given ?? (await benchDatabase());
  try {
    const { keys } = await createMerchant(database.knex, { name: 'Bench', now: new Date() });
    const checkoutBody = JSON.stringify({ amountCents: 350000, description: 'Bench tea', reference: 'bench' });
    await measureAgainstBare(database, {
      label: 'Kasi POST /v1/checkouts',
      title: 'POST /v1/checkouts (Idempotency-Key, lifetime workflow started) vs the bare server',
      request: (url) => ({
        url: `${url}/v1/checkouts`, method: 'POST', idempotent: true,
        headers: { authorization: `Bearer ${keys.pk_test}`, 'content-type': 'application/json' },
        body: () => checkoutBody,
      }),
      // The publishable key cannot create customers: the bare server's insert takes the secret key.
      baseline: { label: 'bare Koa + pg (insert)', request: bareInsert({ authorization: `Bearer ${keys.sk_test}`, 'content-type': 'application/json' }) },
      ratio: 0.75,
      p99Ms: 25,
    });
  } finally {
    if (!given) await database.close();
  }
}

if (require.main === module) runAsCommand(() => runCheckoutBench());
