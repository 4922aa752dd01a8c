// One endpoint of Kasi against the bare Koa + pg server (by default its POST /v1/customers: one
// insert with its Idempotency-Key), measured as bench/README.md describes: both servers in child
// processes, up at once; a warm-up of WARM_UP_SECONDS each; the load alternating between them for
// ROUNDS rounds of SECONDS closed-loop load with CONNECTIONS connections, each reporting its median
// round as its maximum rate; then Kasi at half its maximum rate, a steady open loop (latency from
// each request's due time) for HALF_RATE_RUNS runs of SECONDS, whose median p99 counts. Targets: a
// share of the bare server's throughput and a p99 at half the maximum rate, each contest its own.
import type { BenchDatabase } from './database';
import { interleaved, load, printComparison, startServer, steadyLoad, stopServer, type Figures, type LoadOptions } from './load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const WARM_UP_SECONDS = 3;
const ROUNDS = 5;
const HALF_RATE_RUNS = 3;
const CONNECTIONS = 10;

type Request = (url: string) => Omit<LoadOptions, 'seconds'>;

export interface Contest {
  /** `Kasi POST /v1/refunds`: the label of its figures. */
  label: string;
  /** The comparison's heading: what one request does. */
  title: string;
  /** The request on Kasi at `url`. */
  request: Request;
  /** The bare server's request and its label: by default its insert, with `request`'s headers (a secret test key). */
  baseline?: { label: string; request: Request };
  /** At least this share of the bare server's throughput (0.5 unless stated). */
  ratio?: number;
  /** The p99 at half the maximum rate under this many ms (50 unless stated). */
  p99Ms?: number;
}

/** The bare server's POST /v1/customers, a new email each, with `headers`. */
export function bareInsert(headers: Record<string, string>): Request {
  let emails = 0;
  return (url) => ({
    url: `${url}/v1/customers`, method: 'POST', headers, idempotent: true,
    body: () => JSON.stringify({ email: `bench-${process.pid}-${++emails}@example.com` }),
  });
}

export async function measureAgainstBare(database: BenchDatabase, contest: Contest): Promise<void> {
  const ratioTarget = contest.ratio ?? 0.5;
  const p99Target = contest.p99Ms ?? 50;
  const kasi = await startServer('servers/kasi.ts', database.env);
  const bare = await startServer('servers/bare.ts', database.env);
  const halves: Figures[] = [];
  let max: Figures;
  let baseline: Figures;
  try {
    const kasiRequest: LoadOptions = { ...contest.request(kasi.url), seconds: SECONDS };
    const { label: bareLabel, request: bareRequest } = contest.baseline ?? { label: 'bare Koa + pg (insert)', request: bareInsert(kasiRequest.headers) };
    const bareOptions: LoadOptions = { ...bareRequest(bare.url), seconds: SECONDS };
    await load('warm-up', { ...kasiRequest, seconds: WARM_UP_SECONDS, connections: CONNECTIONS });
    await load('warm-up', { ...bareOptions, seconds: WARM_UP_SECONDS, connections: CONNECTIONS });
    [max, baseline] = (await interleaved(
      [
        { label: contest.label, run: (label) => load(label, { ...kasiRequest, connections: CONNECTIONS }) },
        { label: bareLabel, run: (label) => load(label, { ...bareOptions, connections: CONNECTIONS }) },
      ],
      ROUNDS,
    )) as [Figures, Figures];
    const rate = Math.max(1, Math.round(max.requestsPerSecond / 2));
    for (let run = 0; run < HALF_RATE_RUNS; run++) halves.push(await steadyLoad('Kasi at half rate', { ...kasiRequest, rate }));
  } finally {
    await stopServer(kasi.child);
    await stopServer(bare.child);
  }
  printComparison(contest.title, max, baseline, ratioTarget);
  const half = [...halves].sort((a, b) => a.p99 - b.p99)[Math.floor(halves.length / 2)]!;
  const runs = halves.map((h) => h.p99).join(', ');
  const late = Math.max(...halves.map((h) => h.latestSendMs ?? 0));
  console.log(
    `  at half the maximum rate (${Math.round(max.requestsPerSecond / 2)} req/s): ${half.requestsPerSecond.toFixed(0)} req/s   p50 ${half.p50} ms   p99 ${half.p99} ms ` +
      `(median of ${halves.length} runs: ${runs} ms; the load generator at most ${late.toFixed(0)} ms late)   errors ${halves.reduce((n, h) => n + h.errors, 0)}: p99 under ${p99Target} ms ${half.p99 < p99Target ? 'met' : 'NOT met'}`,
  );
}
