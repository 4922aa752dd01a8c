// Shared benchmark plumbing: servers in child processes (so the load generator does not share
// their event loop), autocannon as the load, and the figures printed side by side.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import packageJson from '../package.json';
import { runSteadyPlan } from './steady-load';

export interface Figures {
  label: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** An open loop's: how late the load generator sent its latest request, ms. */
  latestSendMs?: number;
}

/**
 * The Node flags `npm start` gives the service, read from its script in package.json (a young
 * generation of 32 MB semi-spaces instead of 16, so a request's garbage dies young instead of
 * being promoted; one V8 helper thread instead of four: see docs/operators/scaling.md): every server in a
 * benchmark runs with them.
 */
export const SERVICE_NODE_FLAGS = packageJson.scripts.start.split(/\s+/).filter((arg) => arg.startsWith('--'));

export async function startServer(script: string, env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const profile = [...SERVICE_NODE_FLAGS];
  // BENCH_PROFILE_DIR=<dir> writes a CPU profile of each server there (on its SIGTERM exit).
  if (process.env.BENCH_PROFILE_DIR) profile.push('--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`);
  if (process.env.BENCH_TRACE_GC) profile.push('--trace-gc');
  if (process.env.BENCH_NODE_FLAGS) profile.push(...process.env.BENCH_NODE_FLAGS.split(' '));
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', path.resolve(__dirname, script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      if (process.env.BENCH_TRACE_GC) process.stderr.write(chunk);
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { url, child };
}

export function stopServer(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export interface LoadOptions {
  url: string;
  /** Each request's path (with its query), when they differ: else `url`'s. */
  path?: () => string;
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: () => string;
  idempotent?: boolean;
  seconds: number;
}

let keys = 0;
const idempotencyKey = () => `bench-${process.pid}-${Date.now()}-${++keys}`;

/** Closed loop: each of `connections` sends its next request as soon as the last is answered. */
export async function load(label: string, options: LoadOptions & { connections: number }): Promise<Figures> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    connections: options.connections,
    duration: options.seconds,
    headers: options.headers,
    requests: [
      {
        setupRequest: (req) => {
          const headers = { ...req.headers };
          if (options.idempotent) headers['idempotency-key'] = idempotencyKey();
          return { ...req, headers, ...(options.body ? { body: options.body() } : {}), ...(options.path ? { path: options.path() } : {}) };
        },
      },
    ],
  });
  return {
    label,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

/**
 * Open loop at a steady `rate`: request i is due at start + i / rate, whatever the answers before
 * it, and its latency counts from when it was due (so a server that falls behind is not flattered
 * by the load waiting for it). autocannon's own rate mode sends each second's budget back to back
 * and then pauses, which measures bursts at full speed rather than a steady half load. The loop
 * runs in a worker thread with a heap of its own (steady-load.ts says why); each request's path,
 * body and Idempotency-Key are made here first.
 */
export async function steadyLoad(label: string, options: LoadOptions & { rate: number }): Promise<Figures> {
  const total = Math.round(options.rate * options.seconds);
  const each = <T>(make: () => T) => Array.from({ length: total }, make);
  const result = await runSteadyPlan({
    url: options.url,
    method: options.method ?? 'GET',
    rate: options.rate,
    total,
    headers: options.headers,
    idempotencyKeys: options.idempotent ? each(idempotencyKey) : undefined,
    paths: options.path ? each(options.path) : undefined,
    bodies: options.body ? each(options.body) : undefined,
  });
  const latencies = result.latencies.sort((a, b) => a - b);
  const at = (p: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN);
  return { label, requestsPerSecond: latencies.length / result.seconds, p50: at(0.5), p99: at(0.99), errors: result.errors, latestSendMs: result.latestSendMs };
}

/**
 * Alternates the load between the contestants round by round (both servers stay up), so drift in
 * a shared, noisy machine hits both alike; each one's figures are those of its median round.
 */
export async function interleaved(contestants: { label: string; run: (label: string) => Promise<Figures> }[], rounds: number): Promise<Figures[]> {
  const results: Figures[][] = contestants.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, c] of contestants.entries()) results[i]!.push(await c.run(c.label));
  }
  return results.map((figures) => [...figures].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(figures.length / 2)]!);
}

export function printComparison(title: string, kasi: Figures, bare: Figures, target: number): void {
  const ratio = kasi.requestsPerSecond / bare.requestsPerSecond;
  console.log(`\n${title}`);
  for (const f of [kasi, bare]) {
    console.log(`  ${f.label.padEnd(28)} ${f.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${String(f.p50).padStart(4)} ms   p99 ${String(f.p99).padStart(4)} ms   errors ${f.errors}`);
  }
  console.log(`  ratio ${(ratio * 100).toFixed(1)}% of the bare server (target at least ${(target * 100).toFixed(0)}%): ${ratio >= target ? 'met' : 'NOT met'}`);
}
