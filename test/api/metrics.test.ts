// GET /metrics: Prometheus text with HTTP requests by route template and status (a latency
// histogram, whose _count counts them), workflows started
// and open by type, webhook attempts by outcome, the database pool and the process's own metrics;
// behind METRICS_TOKEN when it is set, and not served beyond loopback without it. The registry is the process's, shared with any other
// service a test run has started, so counts are compared before and after.
import assert from 'node:assert/strict';
import { loadConfig } from '../../config';
import { recordEvent } from '../../db/events';
import { startApiWithMerchant, ik, type TestApi } from '../support/api';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import type { MerchantKeys } from '../../db/merchants';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[name!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples named so whose labels include `labels`. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

describe('GET /metrics', () => {
  let api: TestApi;
  let keys: MerchantKeys;
  let accountId: string;
  const receivers: Receiver[] = [];

  before(async () => {
    ({ api, keys, accountId } = await startApiWithMerchant({ env: { KASI_WEBHOOK_TIMEOUT_MS: '500' } }));
  });
  after(async () => {
    await api?.close();
    for (const r of receivers) await r.close();
  });

  async function scrape(): Promise<Sample[]> {
    const res = await fetch(`${api.url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(String(res.headers.get('content-type')), /^text\/plain; version=0\.0\.4/);
    return parse(await res.text());
  }

  const openCheckout = async () => {
    const res = await api.request('/v1/checkouts', { key: keys.sk_test, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Tea' } });
    assert.equal(res.status, 201, res.text);
    return res.body as { id: string; url: string; payment: { id: string } };
  };

  it('counts requests by method, route template and status, with a latency histogram, and no id in any label', async () => {
    const before = await scrape();
    const checkout = await openCheckout();
    assert.equal((await api.request(`/v1/checkouts/${checkout.id}`, { key: keys.sk_test })).status, 200);
    assert.equal((await api.request(`/v1/checkouts/${checkout.id}`, { key: keys.sk_test })).status, 200);
    assert.equal((await api.request('/v1/payments/pay_0000000000000000000000zz', { key: keys.sk_test })).status, 404);
    assert.equal((await api.request('/v1/account')).status, 401);
    assert.equal((await api.request('/v1/nothing/here_0000000000000000000000zz?secret=s3cr3t')).status, 404);
    assert.equal((await fetch(checkout.url)).status, 200);
    const after = await scrape();
    const delta = (labels: Record<string, string>, name = 'kasi_http_request_duration_seconds_count') => value(after, name, labels) - value(before, name, labels);

    assert.equal(delta({ method: 'POST', route: '/v1/checkouts', status: '201' }), 1);
    assert.equal(delta({ method: 'GET', route: '/v1/checkouts/{id}', status: '200' }), 2);
    assert.equal(delta({ method: 'GET', route: '/v1/payments/{id}', status: '404' }), 1);
    assert.equal(delta({ method: 'GET', route: '/v1/account', status: '401' }), 1);
    assert.equal(delta({ method: 'GET', route: 'unmatched', status: '404' }), 1);
    assert.equal(delta({ method: 'GET', route: '/checkout/:id', status: '200' }), 1, 'a hosted page by its router template');
    assert.equal(delta({ method: 'GET', route: '/v1/checkouts/{id}', status: '200', le: '+Inf' }, 'kasi_http_request_duration_seconds_bucket'), 2);
    assert.ok(value(after, 'kasi_http_request_duration_seconds_sum', { route: '/v1/checkouts/{id}' }) > 0);

    const labelValues = after.flatMap((s) => Object.values(s.labels));
    for (const raw of [checkout.id, checkout.payment.id, 'pay_0000000000000000000000zz', 'here_', 's3cr3t', 'nothing']) {
      assert.ok(!labelValues.some((v) => v.includes(raw)), `no label holds ${raw}`);
    }
    for (const s of after.filter((s) => s.name.startsWith('kasi_http_'))) {
      assert.doesNotMatch(s.labels.route!, /[a-z]+_[0-9a-z]{24}/, 'a route label is a template');
    }
  });

  it('counts workflows started and open by type', async () => {
    const before = await scrape();
    await openCheckout();
    await openCheckout();
    const after = await scrape();
    const delta = (name: string) => value(after, name, { workflow_type: 'checkoutLifetime' }) - value(before, name, { workflow_type: 'checkoutLifetime' });
    assert.equal(delta('kasi_workflows_started_total'), 2);
    assert.equal(delta('kasi_workflows_open'), 2);
    // 30 minutes later every open checkout has expired and its workflow closed.
    const count = Number((await api.knex('checkouts').where({ status: 'open' }).count({ count: '*' }))[0]?.count);
    assert.ok(count >= 2);
    await api.clock.advance(31 * 60_000);
    const expired = await scrape();
    const open = (samples: Sample[]) => value(samples, 'kasi_workflows_open', { workflow_type: 'checkoutLifetime' });
    assert.equal(open(after) - open(expired), count);
  });

  it('counts webhook attempts by outcome (retried, delivered, failed) with a latency histogram', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    receiver.statuses = [500];
    const endpoint = await api.request('/v1/webhook_endpoints', { key: keys.sk_test, body: { url: receiver.url }, idempotencyKey: ik() });
    assert.equal(endpoint.status, 201, endpoint.text);
    const before = await scrape();
    await api.knex.transaction((trx) => recordEvent(trx, { accountId, mode: 'test', type: 'payment.succeeded', data: { object: 'payment' }, now: api.clock.now() }));
    await receiver.waitFor(1);
    await api.workflows.settle();
    await api.clock.advance(60_000);
    await receiver.waitFor(2);
    await api.workflows.settle();
    // A ping has no ladder: its one failed attempt is final.
    receiver.statuses = [503];
    const ping = await api.request(`/v1/webhook_endpoints/${endpoint.body.id}/ping`, { key: keys.sk_test, method: 'POST', idempotencyKey: ik() });
    assert.equal(ping.status, 202, ping.text);
    await receiver.waitFor(3);
    await api.workflows.settle();
    const after = await scrape();
    const delta = (name: string, outcome: string) => value(after, name, { outcome }) - value(before, name, { outcome });
    assert.deepEqual(
      { retried: delta('kasi_webhook_attempts_total', 'retried'), delivered: delta('kasi_webhook_attempts_total', 'delivered'), failed: delta('kasi_webhook_attempts_total', 'failed') },
      { retried: 1, delivered: 1, failed: 1 },
    );
    assert.equal(delta('kasi_webhook_attempt_duration_seconds_count', 'delivered'), 1);
    assert.equal(delta('kasi_webhook_attempt_duration_seconds_bucket', 'retried') > 0, true);
  });

  it('reports the database pool and the process', async () => {
    const samples = await scrape();
    const names = new Set(samples.map((s) => s.name));
    for (const name of ['kasi_db_pool_connections_used', 'kasi_db_pool_connections_free', 'kasi_db_pool_pending_acquires', 'process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      assert.ok(names.has(name), `${name} is reported`);
    }
    assert.ok(value(samples, 'kasi_db_pool_connections_used') + value(samples, 'kasi_db_pool_connections_free') >= 1, 'the pool holds the connections the requests used');
  });

  it('wants the token when METRICS_TOKEN is set; the health probes do not', async () => {
    const sibling = await api.sibling({ METRICS_TOKEN: 'metrics-token-for-tests' });
    try {
      const plain = await fetch(`${sibling.url}/metrics`);
      assert.equal(plain.status, 401);
      assert.equal(plain.headers.get('www-authenticate'), 'Bearer realm="metrics"');
      assert.doesNotMatch(await plain.text(), /kasi_/);
      assert.equal((await fetch(`${sibling.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-for-tests-not' } })).status, 401);
      assert.equal((await fetch(`${sibling.url}/metrics`, { headers: { authorization: `Bearer ${keys.sk_test}` } })).status, 401, 'an API key is not the token');
      const allowed = await fetch(`${sibling.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-for-tests' } });
      assert.equal(allowed.status, 200);
      assert.match(await allowed.text(), /^kasi_http_request_duration_seconds_count\{/m);
      assert.equal((await fetch(`${sibling.url}/healthz`)).status, 200);
      assert.equal((await fetch(`${sibling.url}/readyz`)).status, 200);
    } finally {
      await sibling.close();
    }
    assert.equal((await fetch(`${api.url}/metrics`)).status, 200, 'without METRICS_TOKEN no token is asked');
  });

  describe('beyond loopback (HOST=0.0.0.0, as in the Docker image)', () => {
    /** The server's own address seen from this machine: it listens on every interface. */
    const local = (server: TestApi) => `http://127.0.0.1:${new URL(server.url).port}`;

    it('without METRICS_TOKEN: /metrics is 404, saying what to set; the probes answer', async () => {
      const open = await api.sibling({ HOST: '0.0.0.0' });
      try {
        const res = await fetch(`${local(open)}/metrics`);
        assert.equal(res.status, 404);
        const text = await res.text();
        assert.match(text, /METRICS_TOKEN/);
        assert.doesNotMatch(text, /kasi_|process_/);
        assert.equal((await fetch(`${local(open)}/healthz`)).status, 200);
        assert.equal((await fetch(`${local(open)}/readyz`)).status, 200);
      } finally {
        await open.close();
      }
    });

    it('with METRICS_TOKEN: a scrape needs it as a Bearer token', async () => {
      const guarded = await api.sibling({ HOST: '0.0.0.0', METRICS_TOKEN: 'metrics-token-for-tests' });
      try {
        assert.equal((await fetch(`${local(guarded)}/metrics`)).status, 401);
        const allowed = await fetch(`${local(guarded)}/metrics`, { headers: { authorization: 'Bearer metrics-token-for-tests' } });
        assert.equal(allowed.status, 200);
        assert.match(await allowed.text(), /^kasi_http_request_duration_seconds_count\{/m);
      } finally {
        await guarded.close();
      }
    });

    it('counts only loopback hosts as loopback', () => {
      const open = (host: string) => loadConfig({ HOST: host, PUBLIC_BASE_URL: 'https://pay.example.lk' }).metricsOpen;
      for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]']) assert.equal(open(host), true, host);
      for (const host of ['0.0.0.0', '::', '192.168.1.5', '10.0.0.8', 'kasi.example', '127.0.0.1.example']) assert.equal(open(host), false, host);
    });
  });
});
