// The embedded PostgreSQL of KASI_DATA_DIR as operators meet it, with real processes (`npm start`
// as child processes, the `kasi` CLI): a service killed in the middle of a renewal advance together
// with its database comes back on the same folder and finishes the advance; two processes started
// at once on one folder share one database, which outlives whichever of them stops first; a start
// that cannot succeed says PostgreSQL's own reason; the CLI says when it started the database.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { connect } from '../../db/connection';
import { findOrStartEmbeddedPostgres } from '../../db/embedded-postgres';
import { PROJECT_ROOT } from '../../workers/temporal-dev-server';
import { ik, requestAt, TEST_SECRET_KEY } from '../support/api';
import { eventually } from '../support/eventually';
import { Child } from '../support/child-process';
import { runKasi } from '../support/kasi';

const ARTIFACTS = path.join(PROJECT_ROOT, 'test-artifacts', 'embedded-postgres-crash');
/** Subscriptions renewed by the advance that is cut short, as in the report (100). */
const N = 100;
const YEAR = new Date().getUTCFullYear() + 1;
const START = `${YEAR}-01-15T04:30:00.000Z`;
const RENEWALS = [`${YEAR}-02-15T04:30:00.000Z`];
const TARGET = `${YEAR}-02-20T00:00:00.000Z`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The running server of a data folder, from PostgreSQL's lock file: its pid and the `kasi` database's URL. */
function serverOf(dataDir: string): { pid: number; url: string } | undefined {
  const file = path.join(dataDir, 'pg', 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, 'utf8').split('\n');
  return { pid: Number(lines[0]), url: `postgres://postgres:kasi-embedded@127.0.0.1:${Number(lines[3])}/kasi` };
}

describe('the embedded PostgreSQL after a crash, and shared by processes', function () {
  this.timeout(240_000);
  const dataDirs: string[] = [];
  const children: Child[] = [];
  const knexes: Knex[] = [];

  /** A fresh KASI_DATA_DIR (under the system's temporary folder: the `postgres` user writes there). */
  const freshDataDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kasi-pgcrash-'));
    dataDirs.push(dir);
    return dir;
  };
  const env = (dataDir: string) => ({
    KASI_DATA_DIR: dataDir,
    DATABASE_URL: '',
    TEMPORAL_ADDRESS: '',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000',
    KASI_SECRET_KEY: TEST_SECRET_KEY,
  });
  const service = (name: string, dataDir: string) => {
    const child = new Child(name, 'start', env(dataDir), ARTIFACTS);
    children.push(child);
    return child;
  };
  const listening = async (child: Child) => (await child.waitForLine(/^listening on (http:\S+)/, 90_000))[1]!;
  const kasi = (dataDir: string, ...args: string[]) => runKasi({ KASI_DATA_DIR: dataDir, DATABASE_URL: '' }, ...args);
  const database = (dataDir: string) => {
    const knex = connect(serverOf(dataDir)!.url, 4);
    knexes.push(knex);
    return knex;
  };
  const merchant = async (dataDir: string) => {
    const made = await kasi(dataDir, 'merchant', 'create', '--name', 'Lanka Tea House', '--json');
    assert.equal(made.code, 0, made.stderr);
    const { accountId, keys } = JSON.parse(made.stdout) as { accountId: string; keys: { sk_test: string } };
    return { accountId, sk: keys.sk_test, stderr: made.stderr };
  };

  afterEach(async function () {
    this.timeout(60_000);
    await Promise.all(knexes.splice(0).map((knex) => knex.destroy()));
    for (const child of children.splice(0)) if (child.running) child.process.kill('SIGKILL');
    // The PostgreSQL servers of these folders (their command lines name them): nothing outlives a test.
    for (const dir of dataDirs) {
      try {
        execFileSync('pkill', ['-KILL', '-f', dir]);
      } catch {
        // none left
      }
    }
    await sleep(200);
    for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * N send_invoice subscriptions on one clock, advanced a month; the service is SIGKILLed once the
   * first renewal is written, `kill` doing the database's part. A new service on the same folder
   * (which, given `refusal`, first meets PostgreSQL's refusal and waits until `release`) comes back
   * and the advance finishes: each period invoiced once. Its stop, the last, stops the database.
   */
  async function crashAndRestart(
    kill: (server: { pid: number; url: string }) => Promise<void>,
    refusal?: { waitingFor: RegExp; release: () => Promise<void> },
  ) {
    const dataDir = freshDataDir();
    const first = service('first', dataDir);
    const url = await listening(first);
    const { accountId, sk } = await merchant(dataDir);
    let knex = database(dataDir);
    await knex('accounts').where({ id: accountId }).update({ status: 'active' });
    const post = async (route: string, body: unknown) => {
      const res = await requestAt(url, route, { key: sk, body, idempotencyKey: ik('pgcrash') });
      assert.ok(res.status < 300, `${route}: ${res.status} ${res.text}`);
      return res.body;
    };
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: START });
    const price = await post('/v1/prices', { product: { name: 'Pro plan' }, unitAmountCents: 150000, interval: 'month' });
    const subscriptionIds: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < N) {
          const i = next++;
          const customer = await post('/v1/customers', { email: `storm-${i}@example.com`, testClockId: clock.id });
          subscriptionIds.push((await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, collectionMethod: 'send_invoice' })).id);
        }
      }),
    );
    const cycles = async () => Number((await knex('invoices').where({ billing_reason: 'subscription_cycle' }).count({ n: '*' }))[0]!.n);

    assert.equal((await post(`/v1/test_helpers/test_clocks/${clock.id}/advance`, { frozenTime: TARGET })).status, 'advancing');
    const atKill = await eventually(cycles, (n) => n > 0, 60_000);
    assert.ok(atKill > 0, 'a renewal before the kill');
    assert.ok(atKill < N * RENEWALS.length, 'killed before the advance finished');
    await Promise.all(knexes.splice(0).map((k) => k.destroy()));
    const server = serverOf(dataDir)!;
    first.process.kill('SIGKILL');
    await kill(server);
    await first.exited;

    const postgresLog = path.join(dataDir, 'postgres.log');
    const readLog = () => (existsSync(postgresLog) ? readFileSync(postgresLog) : Buffer.alloc(0));
    const logOffset = readLog().length;
    const second = service('second', dataDir);
    if (refusal) {
      // The restart meets what is left, and waits: PostgreSQL's refusal is in its log, the service runs on.
      const refused = await eventually(
        async () => {
          if (!second.running) throw new Error(`the restart exited: ${readFileSync(second.logPath, 'utf8')}`);
          return refusal.waitingFor.test(readLog().subarray(logOffset).toString());
        },
        (found) => found,
        90_000,
      );
      assert.ok(refused, `${refusal.waitingFor} in PostgreSQL's log`);
      await sleep(1000);
      assert.ok(second.running, 'the restart waits');
      await refusal.release();
    }
    const restartedUrl = await listening(second);
    assert.equal((await requestAt(restartedUrl, '/readyz')).status, 200, 'ready after the restart');
    knex = database(dataDir);
    const ready = await eventually(
      async () => {
        await sleep(200);
        return (await requestAt(restartedUrl, `/v1/test_helpers/test_clocks/${clock.id}`, { key: sk })).body.status;
      },
      (status) => status === 'ready',
      120_000,
    );
    assert.equal(ready, 'ready', 'the advance finished after the restart');
    const invoices = (await knex('invoices').whereIn('subscription_id', subscriptionIds).select('subscription_id', 'period_start')) as { subscription_id: string; period_start: Date }[];
    const periods = new Map<string, number>();
    for (const i of invoices) periods.set(`${i.subscription_id} ${i.period_start.toISOString()}`, (periods.get(`${i.subscription_id} ${i.period_start.toISOString()}`) ?? 0) + 1);
    const expected = subscriptionIds.flatMap((id) => [START, ...RENEWALS].map((at) => `${id} ${at}`));
    assert.deepEqual(
      { missing: expected.filter((key) => !periods.has(key)).length, twice: [...periods].filter(([, n]) => n > 1).map(([key]) => key) },
      { missing: 0, twice: [] },
    );
    assert.equal(invoices.length, N * (1 + RENEWALS.length));
    const renewedTo = (await knex('subscriptions').whereIn('id', subscriptionIds).distinct('current_period_start')) as { current_period_start: Date }[];
    assert.deepEqual(renewedTo.map((s) => s.current_period_start.toISOString()), [RENEWALS.at(-1)]);

    // The last one out: the restarted service stops the database, whoever started it.
    await Promise.all(knexes.splice(0).map((k) => k.destroy()));
    assert.equal(await second.stop(), 0);
    assert.equal(existsSync(path.join(dataDir, 'pg', 'postmaster.pid')), false, 'the database stopped with the last service');
  }

  it(`a service SIGKILLed alone in the middle of an advance renewing ${N} subscriptions: the restart uses the database it left running, finishes the advance, and stops that database when it stops`, async () => {
    await crashAndRestart(async () => undefined);
  });

  it(`a service SIGKILLed with its postmaster in the middle of an advance renewing ${N} subscriptions comes back (a stale postmaster.pid, a server's process still going) and finishes it, each period invoiced once`, async () => {
    // A backend reading from a program does not look for its postmaster until the program ends: it
    // outlives the kill, holding the server's shared memory, as a busy one does.
    const program = `sleep 59.${process.pid}`;
    let holder: Knex | undefined;
    await crashAndRestart(
      async (server) => {
        holder = connect(server.url, 1);
        await holder.raw('create temporary table hold (line text)');
        void holder.raw(`copy hold from program '${program}'`).catch(() => undefined);
        const reading = async () => {
          try {
            execFileSync('pgrep', ['-f', program]);
            return true;
          } catch {
            return false;
          }
        };
        assert.ok(await eventually(reading, (found) => found, 10_000), 'the backend reads from its program');
        process.kill(server.pid, 'SIGKILL');
      },
      {
        waitingFor: /pre-existing shared memory block .* is still in use/,
        release: async () => {
          execFileSync('pkill', ['-f', program]);
          await holder!.destroy();
        },
      },
    );
  });

  it('a service SIGKILLed while its database is shutting down (a session still open) waits for it to go, then starts it again and finishes the advance', async () => {
    let holder: Knex | undefined;
    await crashAndRestart(
      async (server) => {
        // A session kept open holds a smart shutdown (SIGTERM) back: the old server stays, not answering.
        holder = connect(server.url, 1);
        await holder.raw('select 1');
        process.kill(server.pid, 'SIGTERM');
      },
      { waitingFor: /lock file "postmaster\.pid" already exists/, release: async () => holder!.destroy() },
    );
  });

  it('two services started at once on one data folder share one database, which stays up while either runs; `kasi` uses it and says nothing', async () => {
    const dataDir = freshDataDir();
    const [a, b] = [service('a', dataDir), service('b', dataDir)];
    const [urlA, urlB] = await Promise.all([listening(a), listening(b)]);
    const { accountId, sk, stderr } = await merchant(dataDir);
    assert.equal(stderr, '', 'the CLI found the running database');
    const knex = database(dataDir);
    await knex('accounts').where({ id: accountId }).update({ status: 'active' });
    const customer = await requestAt(urlA, '/v1/customers', { key: sk, body: { email: 'a@example.com' }, idempotencyKey: ik('a') });
    assert.equal(customer.status, 201, customer.text);
    assert.equal((await requestAt(urlB, `/v1/customers/${customer.body.id}`, { key: sk })).status, 200, 'one database: B reads what A wrote');
    await Promise.all(knexes.splice(0).map((k) => k.destroy()));

    // Whichever started the database stops first: the other still works on it.
    const starter = Number(readFileSync(path.join(dataDir, 'postgres.starter'), 'utf8').split(' ')[0]);
    const [first, other, otherUrl] = starter === a.process.pid ? [a, b, urlB] : [b, a, urlA];
    assert.equal(await first.stop(), 0);
    const after = await requestAt(otherUrl, '/v1/customers', { key: sk, body: { email: 'b@example.com' }, idempotencyKey: ik('b') });
    assert.equal(after.status, 201, `the other service still has its database: ${after.text}`);
    assert.equal((await requestAt(otherUrl, '/readyz')).status, 200);
    // The last one out stops it.
    assert.equal(await other.stop(), 0);
    assert.equal(await eventually(async () => existsSync(path.join(dataDir, 'pg', 'postmaster.pid')), (running) => !running, 30_000), false, 'the database stopped');
  });

  it('a start that cannot succeed exits non-zero with PostgreSQL\'s own reason', async () => {
    const dataDir = freshDataDir();
    const made = await kasi(dataDir, 'migrate', '--json');
    assert.equal(made.code, 0, made.stderr);
    // A data folder of another PostgreSQL version: refused at once, not waited for.
    writeFileSync(path.join(dataDir, 'pg', 'PG_VERSION'), '99\n');
    const child = service('incompatible', dataDir);
    assert.equal(await child.exited, 1);
    const log = readFileSync(child.logPath, 'utf8');
    assert.match(log, /embedded PostgreSQL did not start in .*pg: exited with code 1:/);
    assert.match(log, /FATAL: {2}database files are incompatible with server/);
    assert.match(log, /initialized by PostgreSQL version 99/);
  });

  it('a start that waits for a lock held by a process that never goes gives up in time with PostgreSQL\'s reason', async () => {
    const dataDir = freshDataDir();
    assert.equal((await kasi(dataDir, 'migrate', '--json')).code, 0);
    // A live process of the postgres user (PostgreSQL takes another user's for a dead one) named in
    // the lock file, as after a crash when its pid is reused.
    const ids = process.getuid?.() === 0 ? { uid: Number(execFileSync('id', ['-u', 'postgres'])), gid: Number(execFileSync('id', ['-g', 'postgres'])) } : {};
    const squatter = spawn('sleep', ['60'], { stdio: 'ignore', ...ids });
    try {
      writeFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), `${squatter.pid}\n${path.join(dataDir, 'pg')}\n0\n1\n\n127.0.0.1\n0 0\nready   \n`);
      const began = Date.now();
      await assert.rejects(findOrStartEmbeddedPostgres(dataDir, { waitMs: 2000 }), (err: Error) => {
        assert.match(err.message, /did not start in .* \(\d+ tries in \d+ s\)/);
        assert.match(err.message, /lock file "postmaster\.pid" already exists/);
        assert.match(err.message, new RegExp(`Is another postmaster \\(PID ${squatter.pid}\\) running`));
        return true;
      });
      assert.ok(Date.now() - began < 15_000, 'bounded');
    } finally {
      squatter.kill('SIGKILL');
    }
  });

  it('`kasi` that finds no database running starts one, says so on stderr, and stops it when done', async () => {
    const dataDir = freshDataDir();
    const { stderr } = await merchant(dataDir);
    assert.equal(stderr, `kasi: no database was running in ${dataDir}; started one, which stops when this command ends unless another process is using it\n`);
    assert.equal(existsSync(path.join(dataDir, 'pg', 'postmaster.pid')), false, 'stopped when the command ended');
  });
});
