// Kasi on an operator's own Temporal: a plain `temporal server start-dev` (in memory, on free
// ports, its namespace without Kasi's search attributes: not `npm run start:temporal`), with
// TEMPORAL_ADDRESS. `npm start` registers the attributes itself and a checkout's lifetime workflow
// runs; when the namespace loses one, /readyz names the command that brings it back, and a
// checkout committed meanwhile answers 201 and has its start logged, counted and retried until its
// workflow runs (or, its process killed first, started at the next boot); and scaled out, two API processes (`npm start`) and two workers (`npm run worker`) on that one server
// and one PostgreSQL renew N subscriptions on a test clock, each renewed and charged exactly once.
// Skipped, saying why, without the Temporal CLI (.venv/bin/temporal).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import type { Knex } from 'knex';
import { connect } from '../../db/connection';
import { createMerchant, type MerchantKeys } from '../../db/merchants';
import { updateAccount } from '../../db/accounts';
import { ACCOUNT_ID_ATTRIBUTE, MODE_ATTRIBUTE, TASK_QUEUE, workflowIdFor } from '../../orchestration/ids';
import { missingToolMessage, toolPath } from '../../workers/tools';
import { PROJECT_ROOT, startTemporalDevServer, type DevServer } from '../../workers/temporal-dev-server';
import { payAndKeep, type HostedApi } from '../cards/card-flow';
import { ik, TEST_SECRET_KEY } from '../support/api';
import { Child } from '../support/child-process';
import { freshDatabase, type TestDatabase } from '../support/database';
import { remoteApi } from '../support/remote-api';
import { inParallel, until } from '../support/until';

const ARTIFACTS = path.join(PROJECT_ROOT, 'test-artifacts', 'own-temporal');
/** Subscriptions renewed by the scaled-out service (KASI_SCALED_SUBSCRIPTIONS to change it). */
const N = Number(process.env.KASI_SCALED_SUBSCRIPTIONS ?? 100);
/** Customers set up at once over HTTP, half on each API process. */
const SETUP_CONCURRENCY = 16;
const PRICE_CENTS = 150000;
const YEAR = new Date().getUTCFullYear() + 1;
const START = `${YEAR}-01-15T04:30:00.000Z`;
const RENEWAL = `${YEAR}-02-15T04:30:00.000Z`;
const TARGET = `${YEAR}-02-20T00:00:00.000Z`;

const run = promisify(execFile);

describe("Kasi on an operator's own Temporal (a plain development server), scaled out (end to end)", function () {
  this.timeout(60_000);
  let cli: string;
  let database: TestDatabase | undefined;
  let knex: Knex | undefined;
  let temporal: DevServer | undefined;
  let connection: Connection | undefined;
  let client: Client;
  const children: Child[] = [];
  let apis: HostedApi[] = [];
  let accountId: string;
  let keys: MerchantKeys;
  const killAll = () => {
    for (const child of children) if (child.running) child.process.kill('SIGKILL');
    temporal?.process.kill('SIGKILL');
  };
  let env: Record<string, string>;
  const spawnKasi = (name: string, script: 'start' | 'worker') => {
    const child = new Child(name, script, env, ARTIFACTS);
    children.push(child);
    return child;
  };
  const listening = async (child: Child) => remoteApi((await child.waitForLine(/^listening on (http:\S+)/, 120_000))[1]!, knex!);
  const operatorCli = (...args: string[]) => run(cli, ['operator', 'search-attribute', ...args, '--address', temporal!.address, '--namespace', temporal!.namespace], { timeout: 30_000 });

  before(async function () {
    this.timeout(150_000);
    const found = toolPath('temporal');
    if (!found) {
      console.log(`    end-to-end test on an operator's own Temporal skipped: ${missingToolMessage('temporal')}`);
      this.skip();
    }
    cli = found!;
    process.once('exit', killAll);
    const [db, server] = await Promise.allSettled([freshDatabase(), startTemporalDevServer({ cli, headless: true, readyTimeoutMs: 60_000 })]);
    if (db.status === 'fulfilled') database = db.value;
    if (server.status === 'fulfilled') temporal = server.value;
    for (const outcome of [db, server]) if (outcome.status === 'rejected') throw outcome.reason;
    connection = await Connection.connect({ address: temporal!.address });
    client = new Client({ connection, namespace: temporal!.namespace });
    knex = connect(database!.url, 4);
    env = {
      DATABASE_URL: database!.url,
      TEMPORAL_ADDRESS: temporal!.address,
      TEMPORAL_NAMESPACE: temporal!.namespace,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '1000000',
      KASI_SECRET_KEY: TEST_SECRET_KEY,
    };
    const merchant = await createMerchant(knex, { name: 'Lanka Tea House', now: new Date() });
    await updateAccount(knex, merchant.account.id, { status: 'active' }, new Date());
    ({ keys } = merchant);
    accountId = merchant.account.id;
  });

  after(async function () {
    this.timeout(60_000);
    if (this.test?.parent?.tests.some((t) => t.state === 'failed')) console.log(`    the processes' output: ${ARTIFACTS}`);
    await Promise.all(children.map((child) => child.stop()));
    process.off('exit', killAll);
    await connection?.close();
    await temporal?.stop();
    await knex?.destroy();
    await database?.drop();
  });

  const checkoutAt = async (api: HostedApi) => {
    const res = await api.request('/v1/checkouts', { key: keys.sk_test, idempotencyKey: ik('own'), body: { amountCents: 120000, description: 'Ceylon tea' } });
    assert.equal(res.status, 201, res.text);
    return { id: res.body.id as string, handle: client.workflow.getHandle(workflowIdFor('checkout', res.body.id)) };
  };
  const running = (handle: ReturnType<Client['workflow']['getHandle']>, what: string, timeoutMs = 30_000) =>
    until(what, timeoutMs, async () => ((await handle.describe().catch(() => undefined))?.status.name === 'RUNNING' ? true : undefined));
  /** The checkout committed while the namespace lacked KasiMode: killed before its retry, then started at a boot. */
  let orphan: Awaited<ReturnType<typeof checkoutAt>>;

  it("npm start registers Kasi's search attributes on the plain server, and a checkout's lifetime workflow runs", async function () {
    this.timeout(150_000);
    const listed = async () => Object.keys((await connection!.operatorService.listSearchAttributes({ namespace: temporal!.namespace })).customAttributes ?? {});
    assert.deepEqual((await listed()).filter((name) => name.startsWith('Kasi')), [], 'a plain server has none of them');
    apis = [await listening(spawnKasi('api-1', 'start'))];
    assert.deepEqual((await listed()).filter((name) => name.startsWith('Kasi')).sort(), ['KasiAccountId', 'KasiMode']);

    const { handle } = await checkoutAt(apis[0]!);
    const described = await until("the checkout's lifetime workflow", 15_000, () => handle.describe().catch(() => undefined));
    assert.equal(described.type, 'checkoutLifetime');
    assert.equal(described.status.name, 'RUNNING');
    assert.equal(described.typedSearchAttributes.get(ACCOUNT_ID_ATTRIBUTE), accountId);
    assert.equal(described.typedSearchAttributes.get(MODE_ATTRIBUTE), 'test');
  });

  it("a checkout committed while the namespace lacks a search attribute: 201, /readyz names the command, the start is logged, counted and retried until its workflow runs", async function () {
    this.timeout(90_000);
    const api = apis[0]!;
    const readyz = async () => {
      const res = await fetch(`${api.url}/readyz`);
      return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, { status: string; message?: string }> } };
    };
    const metric = async (name: string) => {
      const line = (await (await fetch(`${api.url}/metrics`)).text()).split('\n').find((l) => l.startsWith(name));
      return line === undefined ? undefined : Number(line.split(' ').pop());
    };
    assert.equal((await readyz()).status, 200);
    await operatorCli('remove', '--name', 'KasiMode', '--yes');
    const notReady = await until('/readyz to answer 503', 15_000, async () => {
      const answer = await readyz();
      return answer.status === 503 ? answer.body : undefined;
    });
    const message = notReady.checks.orchestration?.message ?? '';
    assert.ok(message.includes(`temporal operator search-attribute create --namespace ${temporal!.namespace} --name KasiMode --type Keyword`), message);

    // A worker container's healthcheck (docker-compose.yml) says the same, with the address.
    const health = await run(process.execPath, ['--import', 'tsx', 'workers/worker-health.ts'], { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, timeout: 30_000 }).then(
      () => assert.fail('the healthcheck passed'),
      (err: { code: number; stderr: string }) => err,
    );
    assert.equal(health.code, 1);
    assert.ok(health.stderr.includes(`temporal operator search-attribute create --address ${temporal!.address} --namespace ${temporal!.namespace} --name KasiMode --type Keyword`), health.stderr);

    // The checkout is committed and answered; its workflow cannot start yet.
    const waiting = await checkoutAt(api);
    await children[0]!.waitForLine(new RegExp(`^(?=.*"checkout/${waiting.id}")(?=.*workflow start failed after commit; retrying in the background)`), 10_000);
    assert.ok(((await metric('kasi_workflow_start_failures_total{workflow_type="checkoutLifetime"}')) ?? 0) >= 1);
    assert.equal(await metric('kasi_workflow_starts_awaiting_retry'), 1);
    assert.equal(await waiting.handle.describe().catch(() => undefined), undefined, 'no workflow yet');

    // The command as /readyz names it (with the connection options an operator adds): ready again, and the retry starts the workflow.
    await operatorCli('create', '--name', 'KasiMode', '--type', 'Keyword');
    await until('/readyz to answer 200 again', 15_000, async () => ((await readyz()).status === 200 ? true : undefined));
    await running(waiting.handle, "the waiting checkout's workflow, started by a retry");
    assert.equal(await metric('kasi_workflow_starts_awaiting_retry'), 0);

    // Once more, and the process is killed before its retry: the checkout is left without a workflow.
    await operatorCli('remove', '--name', 'KasiMode', '--yes');
    await until('/readyz to answer 503', 15_000, async () => ((await readyz()).status === 503 ? true : undefined));
    orphan = await checkoutAt(api);
    await children[0]!.waitForLine(new RegExp(`^(?=.*"checkout/${orphan.id}")(?=.*retrying in the background)`), 10_000);
    children[0]!.process.kill('SIGKILL');
    await children[0]!.exited;
    apis = [];
    await operatorCli('create', '--name', 'KasiMode', '--type', 'Keyword');
    assert.equal(await orphan.handle.describe().catch(() => undefined), undefined, 'no workflow yet');
  });

  it(`two API processes and two workers on one server and one PostgreSQL: a clock advance renews ${N} subscriptions, each renewed and charged exactly once`, async function () {
    this.timeout(240_000);
    const began = Date.now();
    const started = [spawnKasi('api-2', 'start'), spawnKasi('api-3', 'start'), spawnKasi('worker-1', 'worker'), spawnKasi('worker-2', 'worker')];
    apis = [await listening(started[0]!), await listening(started[1]!)];
    for (const worker of started.slice(2)) await worker.waitForLine(/^worker polling task queue/, 120_000);
    // The checkout the killed process left without its workflow: found and started at a boot.
    await running(orphan.handle, "the orphaned checkout's workflow, started at boot", 15_000);
    // All four poll the one task queue (a process's identity is pid@host).
    const pids = started.map((c) => `${c.process.pid}@`);
    await until('every process polling the task queue', 15_000, async () => {
      const { pollers } = await connection!.workflowService.describeTaskQueue({ namespace: temporal!.namespace, taskQueue: { name: TASK_QUEUE }, taskQueueType: 2 });
      const identities = (pollers ?? []).map((p) => p.identity ?? '');
      return pids.every((pid) => identities.some((id) => id.startsWith(pid))) ? true : undefined;
    });

    const post = async (api: HostedApi, route: string, body: unknown = {}) => {
      const res = await api.request(route, { key: keys.sk_test, body, idempotencyKey: ik('scaled') });
      assert.ok(res.status < 300, `${route}: ${res.status} ${res.text}`);
      return res.body;
    };
    const clock = await post(apis[0]!, '/v1/test_helpers/test_clocks', { frozenTime: START, name: 'scaled out' });
    const price = await post(apis[1]!, '/v1/prices', { product: { name: 'Pro plan' }, unitAmountCents: PRICE_CENTS, interval: 'month' });
    // Each customer on one of the two API processes, in turn: both take requests and start workflows.
    const subscriptionIds: string[] = [];
    await inParallel(N, SETUP_CONCURRENCY, async (i) => {
      const api = apis[i % 2]!;
      const email = `scaled-${i}@example.com`;
      const customer = await post(api, '/v1/customers', { email, name: `Customer ${i}`, testClockId: clock.id });
      const { card } = await payAndKeep(api, keys, { email, amountCents: 10000 });
      assert.ok(card, `customer ${i}'s card was kept`);
      subscriptionIds.push((await post(api, '/v1/subscriptions', { customerId: customer.id, priceId: price.id })).id);
    });
    await until(`all ${N} subscriptions active`, 60_000, async () => {
      const rows = (await knex!('subscriptions').groupBy('status').select('status').count({ n: '*' })) as { status: string; n: string }[];
      return rows.length === 1 && rows[0]!.status === 'active' && Number(rows[0]!.n) === N ? true : undefined;
    });
    const setUp = Date.now();

    const advanced = await post(apis[1]!, `/v1/test_helpers/test_clocks/${clock.id}/advance`, { frozenTime: TARGET });
    assert.equal(advanced.status, 'advancing');
    await until('the clock at its target', 120_000, async () => {
      const c = (await apis[0]!.request(`/v1/test_helpers/test_clocks/${clock.id}`, { key: keys.sk_test })).body;
      return c.status === 'ready' && c.frozenTime === TARGET ? true : undefined;
    });
    const renewedAt = Date.now();

    // Per subscription, in SQL: one renewal invoice for the period, paid in full; one payment for it
    // (succeeded); one charge at the sandbox processor for that payment.
    const perSubscription = (await knex!.raw(
      `select s.id,
              count(distinct i.id) filter (where i.status = 'paid' and i.amount_paid_cents = i.total_cents) as paid,
              count(distinct i.id) as invoices,
              count(distinct p.id) as payments,
              count(distinct p.id) filter (where p.status = 'succeeded') as succeeded,
              count(c.*) as charges
         from subscriptions s
         left join invoices i on i.subscription_id = s.id and i.billing_reason = 'subscription_cycle'
         left join payments p on p.invoice_id = i.id
         left join sandbox_charges c on split_part(c.reference, '.', 1) = p.id
        where s.id = any(?)
        group by s.id`,
      [subscriptionIds],
    )).rows as { id: string; paid: string; invoices: string; payments: string; succeeded: string; charges: string }[];
    assert.equal(perSubscription.length, N);
    const wrong = perSubscription.filter((r) => [r.paid, r.invoices, r.payments, r.succeeded, r.charges].some((n) => Number(n) !== 1));
    assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} of ${N} subscriptions not renewed and charged exactly once`);
    const periods = (await knex!('subscriptions').whereIn('id', subscriptionIds).distinct('status', 'current_period_start')) as { status: string; current_period_start: Date }[];
    assert.deepEqual(periods.map((s) => `${s.status} ${s.current_period_start.toISOString()}`), [`active ${RENEWAL}`]);
    console.log(`      ${N} customers set up in ${((setUp - began) / 1000).toFixed(1)} s, renewed in ${((renewedAt - setUp) / 1000).toFixed(1)} s`);
  });
});
