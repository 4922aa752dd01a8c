// Temporal's development server (`temporal server start-dev`, with its Web UI) on loopback, for
// `npm run start:temporal` and the end-to-end test: start it on free or chosen ports, wait until
// its frontend answers (Kasi registers its search attributes itself when it starts: see
// orchestration/search-attributes.ts); and the command lines of the Kasi processes beside it.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';

export interface DevServerOptions {
  /** The Temporal CLI (toolPath('temporal')). */
  cli: string;
  /** Where the frontend and the UI listen: loopback unless told otherwise. */
  ip?: string;
  /** Frontend gRPC port; a free one when unset. */
  port?: number;
  /** Web UI port; a free one when unset. */
  uiPort?: number;
  headless?: boolean;
  namespace?: string;
  /** Keeps workflows across restarts in this SQLite file; in memory when unset. */
  dbFilename?: string;
  /** Each line the server prints (it is quiet unless something is wrong). */
  onOutput?: (line: string) => void;
  readyTimeoutMs?: number;
}

export interface DevServer {
  /** host:port, what TEMPORAL_ADDRESS takes. */
  address: string;
  namespace: string;
  /** The Web UI, unless headless. */
  uiUrl: string | undefined;
  process: ChildProcess;
  /** Stops the server (SIGTERM, then SIGKILL after a few seconds). */
  stop(): Promise<void>;
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port assigned');
  return address.port;
}

export async function startTemporalDevServer(options: DevServerOptions): Promise<DevServer> {
  const ip = options.ip ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  const port = options.port ?? (await freePort(ip));
  const uiPort = options.headless ? undefined : (options.uiPort ?? (await freePort(ip)));
  const args = ['server', 'start-dev', '--ip', ip, '--port', String(port)];
  if (uiPort === undefined) args.push('--headless');
  else args.push('--ui-port', String(uiPort), '--ui-disable-news-fetch');
  // "default" always exists; any other namespace is created at launch.
  if (namespace !== 'default') args.push('--namespace', namespace);
  if (options.dbFilename) args.push('--db-filename', options.dbFilename);
  // Its own process group, so a terminal's Ctrl-C reaches the service first: the server is
  // stopped after the workers that poll it, not under them.
  const child = spawn(options.cli, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const tail: string[] = [];
  const onLine = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      tail.push(line);
      if (tail.length > 40) tail.shift();
      options.onOutput?.(line);
    }
  };
  child.stdout?.on('data', onLine);
  child.stderr?.on('data', onLine);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let running = true;
  void exited.then(() => (running = false));

  const stop = async () => {
    if (!running) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };

  const address = `${ip}:${port}`;
  const uiUrl = uiPort === undefined ? undefined : `http://${ip}:${uiPort}`;
  try {
    await Promise.race([
      waitForReady(address, namespace, uiUrl, options.readyTimeoutMs ?? 60_000),
      exited.then((code) => {
        throw new Error(`temporal server start-dev exited (${code}) before it was ready:\n${tail.join('\n')}`);
      }),
    ]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { address, namespace, uiUrl, process: child, stop };
}

/** Until the frontend serves the namespace and the UI (if any) answers, or the time is up. */
async function waitForReady(address: string, namespace: string, uiUrl: string | undefined, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
      } finally {
        await connection.close();
      }
      if (uiUrl) {
        const res = await fetch(uiUrl, { signal: AbortSignal.timeout(2000) });
        if (!res.ok) throw new Error(`the Web UI answered ${res.status}`);
      }
      return;
    } catch (err) {
      last = err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`Temporal at ${address} was not ready after ${timeoutMs} ms: ${(last as Error)?.message ?? last}`);
}

export const PROJECT_ROOT = path.resolve(__dirname, '..');

/**
 * The node command line of a package.json script that runs `tsx <flags> <file>` (`start`,
 * `worker`), as one process: through npm and tsx's CLI a signal reaches the service twice (each
 * relays it, and a terminal sends it too), and a second SIGINT ends `npm start` before it has
 * stopped cleanly. Read from package.json, so the flags stay those of `npm start`.
 */
export function nodeCommandFor(script: 'start' | 'worker'): { command: string; args: string[] } {
  const scripts = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const [runner, ...rest] = (scripts[script] ?? '').trim().split(/\s+/);
  if (runner !== 'tsx' || rest.length === 0) throw new Error(`package.json script ${script} is not "tsx ... <file>": ${scripts[script]}`);
  return { command: process.execPath, args: ['--import', 'tsx', ...rest] };
}
