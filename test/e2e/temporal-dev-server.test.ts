// End to end on Temporal's real development server: the service (`npm start`'s entry, with
// TEMPORAL_ADDRESS) and a separate `npm run worker` as child processes over a fresh database; a
// checkout paid in chromium through the hosted page and the sandbox processor, its signed webhook;
// a checkout with a short lifetime that expires on the separate worker once the service is gone;
// and both workflows found in the Temporal Web UI by the account's search attribute (a screenshot
// is kept under test-artifacts/). Skipped, saying why, without the Temporal CLI or chromium.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Knex } from 'knex';
import { chromium, type Browser } from 'playwright-core';
import { connect } from '../../db/connection';
import { createMerchant, type MerchantKeys } from '../../db/merchants';
import { updateAccount } from '../../db/accounts';
import { ACCOUNT_ID_ATTRIBUTE, MODE_ATTRIBUTE, TASK_QUEUE, workflowIdFor } from '../../orchestration/ids';
import { verifyWebhook } from '../../sdk/index';
import { missingToolMessage, toolPath } from '../../workers/tools';
import { PROJECT_ROOT, startTemporalDevServer, type DevServer } from '../../workers/temporal-dev-server';
import { Child } from '../support/child-process';
import { freshDatabase, type TestDatabase } from '../support/database';
import { ik, TEST_SECRET_KEY } from '../support/api';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { until } from '../support/until';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = path.join(PROJECT_ROOT, 'test-artifacts', 'temporal-e2e');
// Long enough to pay a checkout in the browser (or stop the service) first, short enough to wait out.
const LIFETIME_MS = 25_000;

/** Waits for every task, so each one's resource is kept for cleanup even when another fails. */
async function settled(...tasks: Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(tasks)).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

describe("Kasi on Temporal's development server, with a separate worker (end to end)", function () {
  this.timeout(60_000);
  let database: TestDatabase | undefined;
  let knex: Knex | undefined;
  let temporal: DevServer | undefined;
  let connection: Connection | undefined;
  let client: Client;
  let service: Child | undefined;
  let worker: Child | undefined;
  let browser: Browser | undefined;
  let receiver: Receiver | undefined;
  let apiUrl: string;
  let accountId: string;
  let keys: MerchantKeys;
  let endpointSecret: string;
  let expiring: { id: string; expiresAt: string; payment: { id: string } };
  let paid: { id: string; payment: { id: string } };
  // Children are ended even if mocha itself is stopped on the way.
  const killAll = () => {
    for (const child of [service, worker]) if (child?.running) child.process.kill('SIGKILL');
    temporal?.process.kill('SIGKILL');
  };

  const request = async (route: string, key: string, body?: unknown) => {
    const res = await fetch(`${apiUrl}${route}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json', 'idempotency-key': ik('e2e') }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    assert.ok(res.ok, `${route}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };

  before(async function () {
    this.timeout(150_000);
    const cli = toolPath('temporal');
    if (!cli) {
      console.log(`    end-to-end test on Temporal skipped: ${missingToolMessage('temporal')}`);
      this.skip();
    }
    if (!existsSync(CHROMIUM)) {
      console.log(`    end-to-end test on Temporal skipped: no chromium at ${CHROMIUM} (apt-get install chromium)`);
      this.skip();
    }
    process.once('exit', killAll);
    mkdirSync(ARTIFACTS, { recursive: true });
    await settled(
      freshDatabase().then((d) => (database = d)),
      startTemporalDevServer({ cli: cli!, readyTimeoutMs: 60_000 }).then((t) => (temporal = t)),
    );
    connection = await Connection.connect({ address: temporal!.address });
    client = new Client({ connection, namespace: temporal!.namespace });
    knex = connect(database!.url, 2);

    const env = {
      DATABASE_URL: database!.url,
      TEMPORAL_ADDRESS: temporal!.address,
      TEMPORAL_NAMESPACE: temporal!.namespace,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '100000',
      KASI_SECRET_KEY: TEST_SECRET_KEY,
      KASI_WEBHOOK_ALLOW_LOOPBACK: 'true',
      KASI_CHECKOUT_LIFETIME_MS: String(LIFETIME_MS),
    };
    service = new Child('service', 'start', env, ARTIFACTS);
    worker = new Child('worker', 'worker', env, ARTIFACTS);
    await settled(
      chromium.launch({ executablePath: CHROMIUM, args: ARGS }).then((b) => (browser = b)),
      startReceiver().then((r) => (receiver = r)),
    );
    apiUrl = (await service.waitForLine(/^listening on (http:\S+)/, 120_000))[1]!;
    await worker.waitForLine(/^worker polling task queue/, 120_000);

    const merchant = await createMerchant(knex, { name: 'Lanka Tea House', now: new Date() });
    await updateAccount(knex, merchant.account.id, { status: 'active' }, new Date());
    ({ keys } = merchant);
    accountId = merchant.account.id;
    endpointSecret = (await request('/v1/webhook_endpoints', keys.sk_test, { url: receiver!.url, eventTypes: ['payment.succeeded'] })).secret;
  });

  after(async function () {
    this.timeout(60_000);
    if (this.test?.parent?.tests.some((t) => t.state === 'failed')) console.log(`    the processes' output: ${ARTIFACTS}`);
    await browser?.close();
    await Promise.all([service?.stop(), worker?.stop()]);
    process.off('exit', killAll);
    await receiver?.close();
    await connection?.close();
    await temporal?.stop();
    await knex?.destroy();
    await database?.drop();
  });

  it('the separate worker polls the task queue for workflow and activity tasks', async () => {
    const identity = `${worker!.process.pid}@${os.hostname()}`;
    for (const taskQueueType of [1, 2] as const) {
      // TASK_QUEUE_TYPE_WORKFLOW = 1, TASK_QUEUE_TYPE_ACTIVITY = 2; a worker without activities never polls for them.
      const pollers = await until(`${identity} polling (type ${taskQueueType})`, 15_000, async () => {
        const answer = await client.workflowService.describeTaskQueue({ namespace: temporal!.namespace, taskQueue: { name: TASK_QUEUE }, taskQueueType });
        const identities = (answer.pollers ?? []).map((p) => p.identity);
        return identities.includes(identity) ? identities : undefined;
      });
      assert.ok(pollers.includes(`${service!.process.pid}@${os.hostname()}`), 'the service polls too');
    }
    // The worker container's healthcheck in docker-compose.yml agrees.
    const health = spawnSync(process.execPath, ['--import', 'tsx', 'workers/worker-health.ts'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, TEMPORAL_ADDRESS: temporal!.address, TEMPORAL_NAMESPACE: temporal!.namespace },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(health.status, 0, health.stderr);
  });

  it('a checkout paid in chromium through the hosted page and the sandbox completes, and its webhook arrives signed', async () => {
    paid = await request('/v1/checkouts', keys.pk_test, { amountCents: 350000, description: 'Ceylon tea', customer: { name: 'Nimal Perera', email: 'nimal@example.com' } });
    const page = await (await browser!.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await page.goto(`${apiUrl}/checkout/${paid.id}`);
    await page.getByRole('button', { name: 'Pay Rs. 3,500.00' }).click();
    await page.getByLabel('Card number').fill('5123450000000008');
    await page.getByLabel('Expiry (MM/YY)').fill('01/39');
    await page.getByLabel('CVV').fill('100');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByRole('button', { name: 'Authenticate', exact: true }).click();
    await page.waitForURL(`${apiUrl}/checkout/${paid.id}`);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Payment received');
    await page.context().close();

    const [got] = await receiver!.waitFor(1, 20_000);
    const event = verifyWebhook<{ type: string; data: { id: string; status: string } }>(got!.body, String(got!.headers['service-signature']), endpointSecret);
    assert.equal(event.type, 'payment.succeeded');
    assert.equal(event.data.id, paid.payment.id);
    assert.equal(event.data.status, 'succeeded');

    const handle = client.workflow.getHandle(workflowIdFor('checkout', paid.id));
    assert.equal(await handle.result(), 'completed');
    const described = await handle.describe();
    assert.equal(described.status.name, 'COMPLETED');
    assert.equal(described.type, 'checkoutLifetime');
    assert.equal(described.typedSearchAttributes.get(ACCOUNT_ID_ATTRIBUTE), accountId);
    assert.equal(described.typedSearchAttributes.get(MODE_ATTRIBUTE), 'test');
  });

  it('with the service stopped, the other checkout expires on the separate worker when its lifetime is up', async function () {
    this.timeout(LIFETIME_MS + 45_000);
    expiring = await request('/v1/checkouts', keys.sk_test, { amountCents: 120000, description: 'Left in the cart' });
    assert.equal(await service!.stop(), 0, 'npm start with TEMPORAL_ADDRESS stops cleanly');
    assert.ok(Date.now() < Date.parse(expiring.expiresAt), 'the service stopped before the checkout expired');
    const handle = client.workflow.getHandle(workflowIdFor('checkout', expiring.id));
    assert.equal(await handle.result(), 'expired');
    assert.equal((await handle.describe()).status.name, 'COMPLETED');
    const checkout = await knex!('checkouts').where({ id: expiring.id }).first('status');
    assert.equal(checkout.status, 'expired');
    const payment = await knex!('payments').where({ id: expiring.payment.id }).first('status');
    assert.equal(payment.status, 'canceled');
    // Nobody else was polling: the closing activity ran on the separate worker, with a database.
    const { events } = await handle.fetchHistory();
    const scheduled = events!.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'closeCheckout');
    assert.ok(scheduled, 'closeCheckout was scheduled');
    const started = events!.find((e) => Number(e.activityTaskStartedEventAttributes?.scheduledEventId) === Number(scheduled.eventId));
    assert.equal(started?.activityTaskStartedEventAttributes?.identity, `${worker!.process.pid}@${os.hostname()}`);
  });

  it("the Web UI finds the account's workflows by KasiAccountId: the paid checkout's is Completed, of type checkoutLifetime", async () => {
    const query = `KasiAccountId="${accountId}"`;
    const ids = await until('both checkouts listed by the search attribute', 15_000, async () => {
      const listed: string[] = [];
      for await (const w of client.workflow.list({ query })) listed.push(w.workflowId);
      return [paid, expiring].every((c) => listed.includes(workflowIdFor('checkout', c.id))) ? listed : undefined;
    });
    assert.ok(ids.some((id) => id.startsWith('webhook-delivery/')), `the webhook delivery is listed too: ${ids.join(', ')}`);

    const page = await (await browser!.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    await page.goto(`${temporal!.uiUrl}/namespaces/${temporal!.namespace}/workflows?query=${encodeURIComponent(query)}`);
    const paidId = workflowIdFor('checkout', paid.id);
    const row = page.getByRole('row').filter({ hasText: paidId });
    await row.waitFor({ timeout: 20_000 });
    // The DOM's text: the badge's capitals are only styling.
    const text = ((await row.textContent()) ?? '').replace(/\s+/g, ' ');
    assert.match(text, /\bCompleted\b/);
    assert.match(text, /\bcheckoutLifetime\b/);
    assert.equal(await page.getByRole('row').filter({ hasText: workflowIdFor('checkout', expiring.id) }).count(), 1);
    const screenshot = path.join(ARTIFACTS, 'web-ui-workflows-by-account.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log(`    screenshot of the Web UI: ${path.relative(PROJECT_ROOT, screenshot)}`);
    await page.context().close();
  });
});
