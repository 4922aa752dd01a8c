import assert from 'node:assert/strict';
import { createApiKey } from '../../db/api-keys';
import { updateAccount } from '../../db/accounts';
import { startApiWithMerchant, ik, type TestApi } from '../support/api';
import type { MerchantKeys } from '../../db/merchants';
import { eventually } from '../support/eventually';

describe('authentication and authorisation', () => {
  let api: TestApi;
  let keys: MerchantKeys;
  let accountId: string;

  before(async () => ({ api, keys, accountId } = await startApiWithMerchant()));
  after(() => api.close());

  async function expectError(res: Promise<{ status: number; body: any; headers: Headers }>, status: number, code: string, reason?: string) {
    const r = await res;
    assert.equal(r.status, status, JSON.stringify(r.body));
    assert.equal(r.body.code, code);
    assert.equal(r.body.reason, reason);
    assert.equal(r.body.traceId, r.headers.get('x-trace-id'));
    assert.equal(r.body.docUrl, `${api.config.docsUrl}#${reason ?? code.toLowerCase()}`);
    return r.body;
  }

  it('answers 401 missing_api_key without an Authorization header', async () => {
    await expectError(api.request('/v1/account'), 401, 'UNAUTHENTICATED', 'missing_api_key');
  });

  const malformed: [string, (key: string) => string][] = [
    ['an empty header', () => ''],
    ['Basic authentication', (k) => `Basic ${Buffer.from(`${k}:`).toString('base64')}`],
    ['the scheme alone', () => 'Bearer'],
    ['the scheme and a space', () => 'Bearer '],
    ['no scheme', (k) => k],
    ['two spaces', (k) => `Bearer  ${k}`],
    ['two keys', (k) => `Bearer ${k} ${k}`],
    ['a key cut short', (k) => `Bearer ${k.slice(0, -1)}`],
    ['extra characters', (k) => `Bearer ${k}x`],
    ['a wrong prefix', (k) => `Bearer xk_test_${k.slice(8)}`],
    ['a wrong mode', (k) => `Bearer sk_prod_${k.slice(8)}`],
    ['a character outside the alphabet', (k) => `Bearer ${k.slice(0, -1)}-`],
    ['a JWT', () => 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc'],
    ['a webhook secret', () => 'Bearer whsec_0123456789abcdef0123456789abcdef'],
    ['the key in another scheme', (k) => `Token ${k}`],
  ];
  for (const [name, header] of malformed) {
    it(`answers 401 malformed_api_key for ${name}`, async () => {
      await expectError(
        api.request('/v1/account', { headers: { authorization: header(keys.sk_test) } }),
        401,
        'UNAUTHENTICATED',
        'malformed_api_key',
      );
    });
  }

  it('accepts the scheme in any letter case (RFC 7235)', async () => {
    const res = await api.request('/v1/account', { headers: { authorization: `bearer ${keys.sk_test}` } });
    assert.equal(res.status, 200);
  });

  it('answers 401 unknown_api_key for a well-shaped key that matches nothing', async () => {
    await expectError(api.request('/v1/account', { key: 'sk_test_' + 'A'.repeat(32) }), 401, 'UNAUTHENTICATED', 'unknown_api_key');
  });

  it('answers 401 unknown_api_key for a revoked key, on every server that had it in memory', async () => {
    const sibling = await api.sibling();
    try {
      const { key, record } = await createApiKey(api.knex, { accountId, kind: 'secret', mode: 'test', now: api.clock.now() });
      for (const server of [api, sibling]) assert.equal((await server.request('/v1/account', { key })).status, 200);
      await api.knex('api_keys').where({ id: record.id }).update({ revoked_at: api.clock.now() });
      // Each server forgets its keys when the change's notification arrives, milliseconds later.
      for (const server of [api, sibling]) {
        const refused = await eventually(() => server.request('/v1/account', { key }), (res) => res.status === 401);
        assert.equal(refused.body.reason, 'unknown_api_key');
      }
      await expectError(api.request('/v1/account', { key }), 401, 'UNAUTHENTICATED', 'unknown_api_key');
    } finally {
      await sibling.close();
    }
  });

  it('answers 401 unknown_api_key for an agent key past its end date, 403 before it', async () => {
    const end = new Date(api.clock.now().getTime() + 60_000);
    const { key } = await createApiKey(api.knex, { accountId, kind: 'agent', mode: 'test', expiresAt: end, now: api.clock.now() });
    await expectError(api.request('/v1/account', { key }), 403, 'FORBIDDEN', 'key_not_permitted');
    await api.clock.advance(60_000);
    await expectError(api.request('/v1/account', { key }), 401, 'UNAUTHENTICATED', 'unknown_api_key');
  });

  it('never reads a key from the query string or the body', async () => {
    await expectError(api.request(`/v1/account?key=${keys.sk_test}`), 401, 'UNAUTHENTICATED', 'missing_api_key');
    await expectError(api.request(`/v1/customers?api_key=${keys.sk_test}`), 401, 'UNAUTHENTICATED', 'missing_api_key');
    await expectError(
      api.request('/v1/customers', { body: { email: 'a@example.com', apiKey: keys.sk_test }, idempotencyKey: ik() }),
      401,
      'UNAUTHENTICATED',
      'missing_api_key',
    );
  });

  it('refuses publishable keys everywhere but POST /v1/checkouts (403)', async () => {
    await expectError(api.request('/v1/account', { key: keys.pk_test }), 403, 'FORBIDDEN', 'key_not_permitted');
    await expectError(api.request('/v1/customers', { key: keys.pk_test }), 403, 'FORBIDDEN', 'key_not_permitted');
    await expectError(
      api.request('/v1/customers', { key: keys.pk_live, body: { email: 'a@example.com' }, idempotencyKey: ik() }),
      403,
      'FORBIDDEN',
      'key_not_permitted',
    );
  });

  it('refuses agent keys on every REST endpoint (403)', async () => {
    for (const key of [keys.ak_test, keys.ak_live]) {
      await expectError(api.request('/v1/account', { key }), 403, 'FORBIDDEN', 'key_not_permitted');
      await expectError(api.request('/v1/customers', { key }), 403, 'FORBIDDEN', 'key_not_permitted');
      await expectError(api.request('/v1/customers', { key, body: { email: 'a@example.com' }, idempotencyKey: ik() }), 403, 'FORBIDDEN', 'key_not_permitted');
    }
  });

  it('checks the endpoint\'s permission', async () => {
    const { key } = await createApiKey(api.knex, { accountId, kind: 'secret', mode: 'test', permissions: ['billing:read'], now: api.clock.now() });
    assert.equal((await api.request('/v1/customers', { key })).status, 200);
    const body = await expectError(
      api.request('/v1/customers', { key, body: { email: 'a@example.com' }, idempotencyKey: ik() }),
      403,
      'FORBIDDEN',
      'key_not_permitted',
    );
    assert.match(body.message, /billing:write/);
    assert.equal((await api.request('/v1/account', { key })).status, 200, 'the account needs no permission');
  });

  it('takes the mode from the key: each mode sees only its own objects; the other mode\'s is 404 mode_mismatch', async () => {
    const created = await api.request('/v1/customers', { key: keys.sk_test, body: { email: 'mode@example.com' }, idempotencyKey: ik() });
    assert.equal(created.status, 201);
    assert.equal(created.body.mode, 'test');
    const id = created.body.id as string;
    assert.equal((await api.request(`/v1/customers/${id}`, { key: keys.sk_test })).status, 200);
    await expectError(api.request(`/v1/customers/${id}`, { key: keys.sk_live }), 404, 'NOT_FOUND', 'mode_mismatch');
    const liveList = await api.request('/v1/customers', { key: keys.sk_live });
    assert.ok(!liveList.body.data.some((c: { id: string }) => c.id === id));
    const liveCreated = await api.request('/v1/customers', { key: keys.sk_live, body: { email: 'mode@example.com', mode: 'test' }, idempotencyKey: ik() });
    assert.equal(liveCreated.status, 400, 'mode is never read from the body');
  });

  it('answers 404 without mode_mismatch for another account\'s object', async () => {
    const other = await api.merchant({ name: 'Other' });
    const created = await api.request('/v1/customers', { key: other.keys.sk_test, body: { email: 'x@example.com' }, idempotencyKey: ik() });
    await expectError(api.request(`/v1/customers/${created.body.id}`, { key: keys.sk_test }), 404, 'NOT_FOUND');
    await expectError(api.request(`/v1/customers/${created.body.id}`, { key: keys.sk_live }), 404, 'NOT_FOUND');
  });

  it('refuses live writes before activation (409 merchant_not_live) but lets test mode and live reads through', async () => {
    const fresh = await api.merchant({ name: 'New' });
    await expectError(
      api.request('/v1/customers', { key: fresh.keys.sk_live, body: { email: 'a@example.com' }, idempotencyKey: ik() }),
      409,
      'CONFLICT',
      'merchant_not_live',
    );
    const live = await api.request('/v1/account', { key: fresh.keys.sk_live });
    assert.equal(live.status, 200);
    assert.equal(live.body.livePaymentsOpen, false);
    const test = await api.request('/v1/customers', { key: fresh.keys.sk_test, body: { email: 'a@example.com' }, idempotencyKey: ik() });
    assert.equal(test.status, 201);
  });

  it('refuses writes of a suspended account (409 merchant_unavailable) in both modes', async () => {
    const suspended = await api.merchant({ name: 'Suspended', activate: true, changes: { status: 'suspended' } });
    for (const key of [suspended.keys.sk_test, suspended.keys.sk_live]) {
      await expectError(
        api.request('/v1/customers', { key, body: { email: 'a@example.com' }, idempotencyKey: ik() }),
        409,
        'CONFLICT',
        'merchant_unavailable',
      );
    }
    const account = await api.request('/v1/account', { key: suspended.keys.sk_test });
    assert.equal(account.body.status, 'suspended');
    assert.equal(account.body.livePaymentsOpen, false);
  });

  it('refuses the writes of an account suspended while its keys are in the server\'s memory', async () => {
    const merchant = await api.merchant({ name: 'Suspended later', activate: true });
    const write = () => api.request('/v1/customers', { key: merchant.keys.sk_live, body: { email: 'a@example.com' }, idempotencyKey: ik() });
    assert.equal((await write()).status, 201);
    await updateAccount(api.knex, merchant.accountId, { status: 'suspended' }, api.clock.now());
    await eventually(write, (res) => res.status === 409);
    await expectError(write(), 409, 'CONFLICT', 'merchant_unavailable');
  });
});
