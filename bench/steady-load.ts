// The open loop of `steadyLoad` (load.ts), in a worker thread of its own. The latency of a request
// counts from when it was due, so a pause of the load generator counts against the server. Run in
// the benchmark's own heap, the generator paused for mark-compacts: the response buffers of a page
// of 25 payments at half rate called for two to seven in each 4-second run, each 11 to 227 ms in a
// heap grown by the benchmarks before (bench/HISTORY.md, session 18). A worker's heap is its own,
// small and clean: there they all but went.
import http from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

/** Everything the worker needs, as data: each request's path and body worked out beforehand. */
export interface SteadyPlan {
  url: string;
  method: string;
  rate: number;
  total: number;
  /** The headers of request i: `headers` with `idempotencyKeys[i]` when given. */
  headers: Record<string, string>;
  idempotencyKeys?: string[];
  paths?: string[];
  bodies?: string[];
}

export interface SteadyResult {
  /** Each answered request's latency from its due time, ms. */
  latencies: number[];
  errors: number;
  seconds: number;
  /** The generator's own worst lateness in sending a request, ms. */
  latestSendMs: number;
}

/** Runs `plan` in a new worker thread. */
export function runSteadyPlan(plan: SteadyPlan): Promise<SteadyResult> {
  return new Promise((resolve, reject) => {
    // The worker runs this same file, compiled by tsx's require hook (its import hook, which this
    // process runs under, does not reach a worker's entry).
    const worker = new Worker(__filename, { workerData: plan, execArgv: ['--require', require.resolve('tsx/cjs')] });
    worker.once('message', (result: SteadyResult) => resolve(result));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the steady load's worker exited with ${code} before answering`)));
  });
}

async function steady(plan: SteadyPlan): Promise<SteadyResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const latencies: number[] = [];
  let errors = 0;
  let latestSendMs = 0;
  const send = (i: number, due: number) =>
    new Promise<void>((resolve) => {
      const key = plan.idempotencyKeys?.[i];
      const headers = key === undefined ? plan.headers : { ...plan.headers, 'idempotency-key': key };
      const path = plan.paths?.[i];
      const req = http.request(path === undefined ? plan.url : new URL(path, plan.url), { method: plan.method, headers, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === undefined || res.statusCode >= 400) errors++;
          latencies.push(performance.now() - due);
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(plan.bodies?.[i]);
    });
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < plan.total; i++) {
    const due = started + (i * 1000) / plan.rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    latestSendMs = Math.max(latestSendMs, performance.now() - due);
    inFlight.push(send(i, due));
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { latencies, errors, seconds, latestSendMs };
}

if (!isMainThread && parentPort !== null) {
  const port = parentPort;
  void steady(workerData as SteadyPlan).then((result) => port.postMessage(result));
}
