// Who may manage webhooks: reading endpoints and deliveries needs `events:read`; everything that
// sends events somewhere, or hands out a signing secret, needs a secret key holding every
// permission. Every webhook route, with each kind of key.
import assert from 'node:assert/strict';
import { createApiKey } from '../../db/api-keys';
import { PERMISSIONS, type Permission } from '../../domain/api-keys';
import type { MerchantKeys } from '../../db/merchants';
import { startApi, ik, type TestApi } from '../support/api';
import { startReceiver, type Receiver } from './receiver';

describe('webhook routes: permissions', () => {
  let api: TestApi;
  let keys: MerchantKeys;
  let accountId: string;
  let receiver: Receiver;
  let endpoint: { id: string; url: string };
  let deliveryId: string;
  const restricted: Record<'checkoutsOnly' | 'eventsRead' | 'allButOne' | 'everyListed', string> = { checkoutsOnly: '', eventsRead: '', allButOne: '', everyListed: '' };

  const restrictedKey = async (permissions: readonly Permission[]) =>
    (await createApiKey(api.knex, { accountId, kind: 'secret', mode: 'test', permissions, now: api.clock.now() })).key;

  before(async () => {
    api = await startApi();
    ({ accountId, keys } = await api.merchant({ activate: true }));
    receiver = await startReceiver();
    restricted.checkoutsOnly = await restrictedKey(['checkouts:create']);
    restricted.eventsRead = await restrictedKey(['events:read']);
    restricted.allButOne = await restrictedKey(PERMISSIONS.filter((p) => p !== 'billing:write'));
    restricted.everyListed = await restrictedKey(PERMISSIONS);
    const created = await api.request('/v1/webhook_endpoints', { key: keys.sk_test, body: { url: receiver.url }, idempotencyKey: ik() });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    endpoint = { id: created.body.id, url: created.body.url };
    const ping = await api.request(`/v1/webhook_endpoints/${endpoint.id}/ping`, { method: 'POST', key: keys.sk_test, idempotencyKey: ik() });
    assert.equal(ping.status, 202, JSON.stringify(ping.body));
    deliveryId = ping.body.id;
    await receiver.waitFor(1);
    await api.workflows.settle();
  });
  after(async () => {
    await api?.close();
    await receiver?.close();
  });

  type Call = { method: 'GET' | 'POST'; path: () => string; body?: () => unknown; allowed: number; need: 'events:read' | 'all' };
  const routes: Record<string, Call> = {
    'GET /v1/webhook_endpoints': { method: 'GET', path: () => '/v1/webhook_endpoints', allowed: 200, need: 'events:read' },
    'GET /v1/webhook_endpoints/{id}': { method: 'GET', path: () => `/v1/webhook_endpoints/${endpoint.id}`, allowed: 200, need: 'events:read' },
    'GET /v1/webhook_endpoints/{id}/deliveries': { method: 'GET', path: () => `/v1/webhook_endpoints/${endpoint.id}/deliveries`, allowed: 200, need: 'events:read' },
    'POST /v1/webhook_endpoints': { method: 'POST', path: () => '/v1/webhook_endpoints', body: () => ({ url: receiver.url }), allowed: 201, need: 'all' },
    'POST /v1/webhook_endpoints/{id}': { method: 'POST', path: () => `/v1/webhook_endpoints/${endpoint.id}`, body: () => ({ url: receiver.url }), allowed: 200, need: 'all' },
    'POST /v1/webhook_endpoints/{id}/rotate_secret': { method: 'POST', path: () => `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, allowed: 200, need: 'all' },
    'POST /v1/webhook_endpoints/{id}/ping': { method: 'POST', path: () => `/v1/webhook_endpoints/${endpoint.id}/ping`, allowed: 202, need: 'all' },
    'POST /v1/webhook_deliveries/{id}/resend': { method: 'POST', path: () => `/v1/webhook_deliveries/${deliveryId}/resend`, allowed: 202, need: 'all' },
  };
  /** The restricted keys each need refuses and allows (besides the merchant's unrestricted secret key, always allowed). */
  const keysFor = (need: Call['need']) =>
    need === 'events:read'
      ? { refused: [restricted.checkoutsOnly], allowed: [restricted.eventsRead], message: /events:read/ }
      : { refused: [restricted.checkoutsOnly, restricted.eventsRead, restricted.allButOne], allowed: [restricted.everyListed], message: /every permission/ };

  async function call(route: Call, key: string) {
    const res = await api.request(route.path(), {
      key,
      ...(route.method === 'POST' ? { method: 'POST', body: route.body?.(), idempotencyKey: ik() } : {}),
    });
    // Let what an allowed call started finish before the next call (a resend refuses a delivery
    // still on its way).
    await api.workflows.settle();
    return res;
  }

  async function refused(route: Call, key: string, message: RegExp) {
    const res = await call(route, key);
    assert.equal(res.status, 403, JSON.stringify(res.body));
    assert.equal(res.body.code, 'FORBIDDEN');
    assert.equal(res.body.reason, 'key_not_permitted');
    assert.match(res.body.message, message);
  }

  it('covers every webhook route the service has, each with its need in the OpenAPI document', async () => {
    const doc = (await api.request('/v1/openapi.json')).body;
    const webhookRoutes = Object.fromEntries(
      Object.entries(doc.paths as Record<string, Record<string, { tags: string[]; 'x-permission'?: string }>>).flatMap(([path, ops]) =>
        Object.entries(ops).filter(([, op]) => op.tags.includes('Webhooks')).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op['x-permission']]),
      ),
    );
    assert.deepEqual(webhookRoutes, Object.fromEntries(Object.entries(routes).map(([name, route]) => [name, route.need])));
  });

  for (const [name, route] of Object.entries(routes)) {
    describe(`${name} (${route.need === 'all' ? 'every permission' : route.need})`, () => {
      it('refuses a restricted key without it (403 key_not_permitted), even one missing a single permission', async () => {
        const { refused: lacking, message } = keysFor(route.need);
        for (const key of lacking) await refused(route, key, message);
      });
      it('allows a restricted key holding it, and an unrestricted secret key', async () => {
        for (const key of [...keysFor(route.need).allowed, keys.sk_test]) assert.equal((await call(route, key)).status, route.allowed);
      });
      it('refuses publishable and agent keys', async () => {
        await refused(route, keys.pk_test, /Publishable keys/);
        await refused(route, keys.ak_test, /Agent keys/);
      });
    });
  }

  it('leaves the endpoint as it was after a restricted key tried to take it over', async () => {
    const before = (await api.request(`/v1/webhook_endpoints/${endpoint.id}`, { key: keys.sk_test })).body;
    const sent = receiver.received.length;
    for (const route of Object.values(routes).filter((r) => r.method === 'POST')) await call({ ...route, body: () => ({ url: 'https://attacker.example/hook' }) }, restricted.checkoutsOnly);
    assert.deepEqual((await api.request(`/v1/webhook_endpoints/${endpoint.id}`, { key: keys.sk_test })).body, before);
    assert.equal(receiver.received.length, sent, 'nothing was sent or re-sent');
  });
});
