// One write endpoint of Kasi against the bare Koa + pg server's POST /v1/customers (one insert
// with its Idempotency-Key), measured as the checkout benchmark measures (bench/README.md): both
// servers in child processes, up at once; a warm-up of WARM_UP_SECONDS each; the load alternating
// between them for ROUNDS rounds of SECONDS closed-loop load with CONNECTIONS connections, each
// reporting its median round as its maximum rate; then Kasi at half its maximum rate, a steady open
// loop (latency from each request's due time) for HALF_RATE_RUNS runs of SECONDS, whose median p99
// counts. Target: at least 50% of the bare server's throughput, p99 under 50 ms at half the
// maximum rate.
import type { BenchDatabase } from './database';
import { interleaved, load, printComparison, startServer, steadyLoad, stopServer, type Figures, type LoadOptions } from './load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const WARM_UP_SECONDS = 3;
const ROUNDS = 5;
const HALF_RATE_RUNS = 3;
const CONNECTIONS = 10;

export interface WriteUnderTest {
  /** `Kasi POST /v1/refunds`: the label of its figures. */
  label: string;
  /** The comparison's heading: what one request does. */
  title: string;
  /** The request on Kasi at `url` (its headers carry a secret test key, which the bare server takes too). */
  request(url: string): Omit<LoadOptions, 'seconds'>;
}

export async function measureAgainstBareInsert(database: BenchDatabase, write: WriteUnderTest): Promise<void> {
  const kasi = await startServer('servers/kasi.ts', database.env);
  const bare = await startServer('servers/bare.ts', database.env);
  const halves: Figures[] = [];
  let max: Figures;
  let baseline: Figures;
  try {
    const writes: LoadOptions = { ...write.request(kasi.url), seconds: SECONDS };
    let emails = 0;
    const inserts: LoadOptions = {
      url: `${bare.url}/v1/customers`, method: 'POST', headers: writes.headers, idempotent: true, seconds: SECONDS,
      body: () => JSON.stringify({ email: `bench-${process.pid}-${++emails}@example.com` }),
    };
    await load('warm-up', { ...writes, seconds: WARM_UP_SECONDS, connections: CONNECTIONS });
    await load('warm-up', { ...inserts, seconds: WARM_UP_SECONDS, connections: CONNECTIONS });
    [max, baseline] = (await interleaved(
      [
        { label: write.label, run: (label) => load(label, { ...writes, connections: CONNECTIONS }) },
        { label: 'bare Koa + pg (insert)', run: (label) => load(label, { ...inserts, connections: CONNECTIONS }) },
      ],
      ROUNDS,
    )) as [Figures, Figures];
    const rate = Math.max(1, Math.round(max.requestsPerSecond / 2));
    for (let run = 0; run < HALF_RATE_RUNS; run++) halves.push(await steadyLoad('Kasi at half rate', { ...writes, rate }));
  } finally {
    await stopServer(kasi.child);
    await stopServer(bare.child);
  }
  printComparison(write.title, max, baseline, 0.5);
  const half = [...halves].sort((a, b) => a.p99 - b.p99)[Math.floor(halves.length / 2)]!;
  console.log(`  at half the maximum rate (${Math.round(max.requestsPerSecond / 2)} req/s): p50 ${half.p50} ms   p99 ${half.p99} ms (median of ${halves.map((h) => h.p99).join(', ')} ms)   errors ${halves.reduce((n, h) => n + h.errors, 0)}: p99 under 50 ms ${half.p99 < 50 ? 'met' : 'NOT met'}`);
}
