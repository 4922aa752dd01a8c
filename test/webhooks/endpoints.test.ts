// Webhook endpoint rules: where live and test webhooks may go (no SSRF, at save and at send time),
// and the events API.
import assert from 'node:assert/strict';
import { recordEvent } from '../../db/events';
import { startApi, ik, type TestApi } from '../support/api';
import { startReceiver, type Receiver } from './receiver';

describe('webhook endpoints and events', () => {
  let api: TestApi;
  let merchant: Awaited<ReturnType<TestApi['merchant']>>;
  let receiver: Receiver;

  before(async () => {
    // internal.example stands for a name whose DNS answer is a private address.
    api = await startApi({
      resolveHost: async (host) => (host === 'internal.example' ? [{ address: '10.0.0.8', family: 4 }] : [{ address: '93.184.216.34', family: 4 }]),
    });
    merchant = await api.merchant({ activate: true });
    receiver = await startReceiver();
  });
  after(async () => {
    await api.close();
    await receiver.close();
  });

  const add = (url: string, key = merchant.keys.sk_live) => api.request('/v1/webhook_endpoints', { key, body: { url }, idempotencyKey: ik() });

  const refusedLive = [
    'http://example.com/hook',
    'https://127.0.0.1/hook',
    'https://127.8.9.10/hook',
    'https://10.0.0.1/hook',
    'https://172.16.5.4/hook',
    'https://192.168.1.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/hook',
    'https://0.0.0.0/hook',
    'https://[::1]/hook',
    'https://[fe80::1]/hook',
    'https://[fd00::1]/hook',
    'https://[::ffff:10.0.0.1]/hook',
    'https://localhost/hook',
    'https://user:pass@example.com/hook',
    'ftp://example.com/hook',
    'not a url',
  ];
  for (const url of refusedLive) {
    it(`refuses the live endpoint ${url}`, async () => {
      const res = await add(url);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      assert.deepEqual(res.body.fields.map((f: { path: string }) => f.path), ['url']);
    });
  }

  it('documents the URL\'s form (http or https, a host, no credentials) and refuses what is outside it', async () => {
    const doc = (await api.request('/v1/openapi.json')).body;
    const url = doc.paths['/v1/webhook_endpoints'].post.requestBody.content['application/json'].schema.properties.url;
    const form = new RegExp(url.pattern, 'u');
    for (const outside of ['ftp://example.com/hook', 'not a url', 'https://', 'https://user:pass@example.com/hook', 'https://@example.com', 'https:example.com']) {
      assert.ok(!form.test(outside), outside);
      assert.equal((await add(outside, merchant.keys.sk_test)).status, 400, outside);
    }
    for (const example of [...url.examples, 'HTTPS://example.com', 'https://example.com:8443?a=b@c']) {
      assert.ok(form.test(example), example);
      assert.equal((await add(example, merchant.keys.sk_test)).status, 201, example);
    }
  });

  it('lets test endpoints use http on localhost, and nothing else internal', async () => {
    assert.equal((await add(receiver.url, merchant.keys.sk_test)).status, 201);
    assert.equal((await add('http://localhost:9/hook', merchant.keys.sk_test)).status, 201);
    for (const url of ['http://example.com/hook', 'https://10.0.0.1/hook', 'http://192.168.1.1/hook']) {
      assert.equal((await add(url, merchant.keys.sk_test)).status, 400, url);
    }
  });

  it('refuses loopback for test endpoints too where the operator does not allow it (a shared server)', async () => {
    const shared = await startApi({ env: { PUBLIC_BASE_URL: 'https://pay.example.lk' } });
    try {
      assert.equal(shared.config.webhookAllowLoopback, false);
      const m = await shared.merchant();
      for (const url of [receiver.url, 'http://localhost:9/hook', 'https://127.0.0.1/hook', 'https://[::1]/hook']) {
        const res = await shared.request('/v1/webhook_endpoints', { key: m.keys.sk_test, body: { url }, idempotencyKey: ik() });
        assert.equal(res.status, 400, url);
      }
    } finally {
      await shared.close();
    }
  });

  it('checks the resolved address again at every send, and sends nothing to an internal one', async () => {
    const created = await add('https://internal.example/hook');
    assert.equal(created.status, 201, 'the name does not resolve to anything internal when saved');
    await api.knex.transaction((trx) =>
      recordEvent(trx, { accountId: merchant.accountId, mode: 'live', type: 'payment.succeeded', data: { object: 'payment' }, now: api.clock.now() }),
    );
    await api.service.webhooks.drain();
    await api.engine.runUntilIdle();
    const deliveries = await api.request(`/v1/webhook_endpoints/${created.body.id}/deliveries`, { key: merchant.keys.sk_live });
    const attempt = deliveries.body.data[0].attempts[0];
    assert.equal(attempt.statusCode, null);
    assert.match(attempt.error, /internal.example resolves to 10\.0\.0\.8, an internal address/);
  });

  it('shows, lists, updates and isolates endpoints by mode', async () => {
    const created = await add('https://hooks.example.com/kasi');
    assert.equal(created.body.object, 'webhook_endpoint');
    assert.match(created.body.secret, /^whsec_/);
    const got = await api.request(`/v1/webhook_endpoints/${created.body.id}`, { key: merchant.keys.sk_live });
    assert.equal(got.body.secret, undefined, 'the secret is shown once');
    assert.equal(got.body.eventTypes, null);
    const updated = await api.request(`/v1/webhook_endpoints/${created.body.id}`, { key: merchant.keys.sk_live, body: { eventTypes: ['refund.succeeded'], enabled: false }, idempotencyKey: ik() });
    assert.deepEqual([updated.body.eventTypes, updated.body.enabled], [['refund.succeeded'], false]);
    const bad = await api.request(`/v1/webhook_endpoints/${created.body.id}`, { key: merchant.keys.sk_live, body: { eventTypes: ['test.ping'] }, idempotencyKey: ik() });
    assert.equal(bad.status, 400);
    const other = await api.request(`/v1/webhook_endpoints/${created.body.id}`, { key: merchant.keys.sk_test });
    assert.equal(other.body.reason, 'mode_mismatch');
    const list = await api.request('/v1/webhook_endpoints', { key: merchant.keys.sk_live });
    assert.ok(list.body.data.some((e: { id: string }) => e.id === created.body.id));
  });

  describe('GET /v1/events', () => {
    let ids: string[] = [];

    before(async () => {
      const other = await api.merchant({ name: 'Events' });
      merchant = other;
      ids = [];
      for (const [i, type] of (['payment.succeeded', 'payment.failed', 'checkout.expired', 'payment.succeeded'] as const).entries()) {
        const event = await api.knex.transaction((trx) =>
          recordEvent(trx, { accountId: other.accountId, mode: 'test', type, data: { object: 'payment', n: i }, now: api.clock.now() }),
        );
        ids.push(event.id);
        await api.clock.advance(60_000);
      }
      await api.knex.transaction((trx) => recordEvent(trx, { accountId: other.accountId, mode: 'live', type: 'payment.succeeded', data: {}, now: api.clock.now() }));
    });

    it('lists the mode\'s events newest first, in the webhook envelope', async () => {
      const res = await api.request('/v1/events', { key: merchant.keys.sk_test });
      assert.deepEqual(res.body.data.map((e: { id: string }) => e.id), [...ids].reverse());
      assert.deepEqual(Object.keys(res.body.data[0]), ['id', 'object', 'type', 'mode', 'created', 'data']);
      assert.equal(res.body.data[0].object, 'event');
      assert.equal(res.body.data[0].mode, 'test');
    });

    it('filters by type and since, and paginates', async () => {
      const succeeded = await api.request('/v1/events?type=payment.succeeded', { key: merchant.keys.sk_test });
      assert.deepEqual(succeeded.body.data.map((e: { id: string }) => e.id), [ids[3], ids[0]]);
      const created = (await api.request(`/v1/events/${ids[2]}`, { key: merchant.keys.sk_test })).body.created;
      const since = await api.request(`/v1/events?since=${encodeURIComponent(created)}`, { key: merchant.keys.sk_test });
      assert.deepEqual(since.body.data.map((e: { id: string }) => e.id), [ids[3], ids[2]]);
      const first = await api.request('/v1/events?limit=3', { key: merchant.keys.sk_test });
      const second = await api.request(`/v1/events?limit=3&cursor=${first.body.nextCursor}`, { key: merchant.keys.sk_test });
      assert.deepEqual(second.body.data.map((e: { id: string }) => e.id), [ids[0]]);
      assert.equal(second.body.hasMore, false);
    });

    it('accepts every listed type in the filter and refuses others', async () => {
      for (const type of ['card.expiring', 'invoice.upcoming', 'entitlements.active_entitlement_summary.updated', 'refund.failed']) {
        assert.equal((await api.request(`/v1/events?type=${type}`, { key: merchant.keys.sk_test })).status, 200, type);
      }
      for (const query of ['type=test.ping', 'type=payment.created', 'since=yesterday', 'since=']) {
        const res = await api.request(`/v1/events?${query}`, { key: merchant.keys.sk_test });
        assert.equal(res.status, 400, query);
      }
    });

    it('gets one event; another mode\'s is 404 mode_mismatch; an unknown id is 404', async () => {
      const res = await api.request(`/v1/events/${ids[1]}`, { key: merchant.keys.sk_test });
      assert.equal(res.body.type, 'payment.failed');
      assert.deepEqual(res.body.data, { object: 'payment', n: 1 });
      assert.equal((await api.request(`/v1/events/${ids[1]}`, { key: merchant.keys.sk_live })).body.reason, 'mode_mismatch');
      assert.equal((await api.request('/v1/events/evt_000000000000000000000000', { key: merchant.keys.sk_test })).status, 404);
    });

    it('needs events:read', async () => {
      assert.equal((await api.request('/v1/events', { key: merchant.keys.pk_test })).body.reason, 'key_not_permitted');
    });
  });
});
