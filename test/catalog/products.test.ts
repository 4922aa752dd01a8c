// Products over HTTP: create, list (with the `active` filter), get, update and archive, keys and
// modes.
import assert from 'node:assert/strict';
import { createApiKey } from '../../db/api-keys';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';

const paths = (res: { body: { fields?: { path: string }[] } }) => (res.body.fields ?? []).map((f) => f.path).sort();

describe('products API', () => {
  let api: TestApi;
  let keys: MerchantKeys;
  let accountId: string;

  before(async () => ({ api, keys, accountId } = await startApiWithMerchant()));
  after(() => api.close());

  const create = (body: unknown, key = keys.sk_test) => api.request('/v1/products', { key, body, idempotencyKey: ik() });
  const update = (id: string, body: unknown, key = keys.sk_test) => api.request(`/v1/products/${id}`, { key, body, idempotencyKey: ik() });

  it('creates an active product, every field present', async () => {
    const res = await create({ name: 'Pro plan', description: 'Everything in Basic' });
    assert.equal(res.status, 201, res.text);
    const at = api.clock.now().toISOString();
    assert.match(res.body.id, /^prod_[0-9a-z]{24}$/);
    assert.deepEqual(res.body, { object: 'product', id: res.body.id, mode: 'test', name: 'Pro plan', description: 'Everything in Basic', active: true, createdAt: at, updatedAt: at });
    assert.deepEqual((await api.request(`/v1/products/${res.body.id}`, { key: keys.sk_test })).body, res.body);
  });

  it('refuses a name out of 1 to 120, a description over 500, unknown fields', async () => {
    assert.deepEqual(paths(await create({})), ['name']);
    assert.deepEqual(paths(await create({ name: '' })), ['name']);
    assert.deepEqual(paths(await create({ name: 'x'.repeat(121) })), ['name']);
    assert.deepEqual(paths(await create({ name: 'x', description: 'd'.repeat(501) })), ['description']);
    assert.deepEqual(paths(await create({ name: 'x', active: false })), ['']);
    assert.equal((await create({ name: 'x'.repeat(120), description: 'd'.repeat(500) })).status, 201);
  });

  it('updates only the fields sent; archives and brings back; a change of nothing keeps updatedAt', async () => {
    const made = (await create({ name: 'Basic', description: 'The start' })).body;
    await api.clock.advance(60_000);
    const renamed = await update(made.id, { name: 'Basic plan' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(renamed.body, { ...made, name: 'Basic plan', updatedAt: api.clock.now().toISOString() });
    await api.clock.advance(60_000);
    assert.deepEqual((await update(made.id, { name: 'Basic plan', active: true })).body, renamed.body, 'nothing changed');
    const archived = (await update(made.id, { active: false, description: null })).body;
    assert.deepEqual([archived.active, archived.description, archived.updatedAt], [false, null, api.clock.now().toISOString()]);
    assert.equal((await update(made.id, { active: true })).body.active, true);
    assert.deepEqual(paths(await update(made.id, { name: '' })), ['name']);
    assert.equal((await update('prod_000000000000000000000000', { name: 'x' })).status, 404);
  });

  it('lists newest first, all or by `active`, a page at a time', async () => {
    const { keys: own } = await api.merchant();
    const made = [];
    for (const name of ['A', 'B', 'C']) made.push((await create({ name }, own.sk_test)).body);
    await update(made[1].id, { active: false }, own.sk_test);
    const list = async (query: string) => (await api.request(`/v1/products${query}`, { key: own.sk_test })).body;
    assert.deepEqual((await list('')).data.map((p: { name: string }) => p.name), ['C', 'B', 'A']);
    assert.deepEqual((await list('?active=true')).data.map((p: { name: string }) => p.name), ['C', 'A']);
    assert.deepEqual((await list('?active=false')).data.map((p: { name: string }) => p.name), ['B']);
    const first = await list('?limit=2');
    assert.deepEqual([first.data.length, first.hasMore, first.nextCursor], [2, true, made[1].id]);
    assert.deepEqual((await list(`?limit=2&cursor=${first.nextCursor}`)).data.map((p: { name: string }) => p.name), ['A']);
    assert.equal((await api.request('/v1/products?active=yes', { key: own.sk_test })).status, 400);
  });

  it('keeps modes apart and asks billing permissions of secret keys', async () => {
    const live = (await create({ name: 'Live only' }, keys.sk_live)).body;
    assert.equal(live.mode, 'live');
    const other = await api.request(`/v1/products/${live.id}`, { key: keys.sk_test });
    assert.deepEqual([other.status, other.body.reason], [404, 'mode_mismatch']);
    assert.equal((await create({ name: 'x' }, keys.pk_test)).body.reason, 'key_not_permitted');
    const reading = (await createApiKey(api.knex, { accountId, kind: 'secret', mode: 'test', permissions: ['billing:read'], now: api.clock.now() })).key;
    assert.equal((await create({ name: 'x' }, reading)).body.reason, 'key_not_permitted');
    assert.equal((await api.request('/v1/products', { key: reading })).status, 200);
  });
});
