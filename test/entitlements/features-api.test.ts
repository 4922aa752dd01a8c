// Entitlement features and a product's features over HTTP: create, list, get, attach, detach, the
// active entitlements' query, every rule and error, keys and modes; concurrent creates of one
// lookup key make one feature.
import assert from 'node:assert/strict';
import { createApiKey } from '../../db/api-keys';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';

const paths = (res: { body: { fields?: { path: string }[] } }) => (res.body.fields ?? []).map((f) => f.path).sort();
const FEATURES = '/v1/entitlements/features';

describe('entitlement features API', () => {
  let api: TestApi;
  let keys: MerchantKeys;
  let accountId: string;

  before(async () => ({ api, keys, accountId } = await startApiWithMerchant()));
  after(() => api.close());

  const post = (path: string, body: unknown, key = keys.sk_test) => api.request(path, { key, body, idempotencyKey: ik() });
  const get = (path: string, key = keys.sk_test) => api.request(path, { key });
  const del = (path: string, key = keys.sk_test) => api.request(path, { method: 'DELETE', key, idempotencyKey: ik() });
  const feature = async (lookupKey: string, key = keys.sk_test) => {
    const res = await post(FEATURES, { name: `Feature ${lookupKey}`, lookupKey }, key);
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const product = async (key = keys.sk_test) => (await post('/v1/products', { name: 'Pro plan' }, key)).body;

  it('creates a feature, every field present, and gets it', async () => {
    const res = await post(FEATURES, { name: 'Priority support', lookupKey: 'Priority_support.v2-1' });
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.id, /^feat_[0-9a-z]{24}$/);
    assert.deepEqual(res.body, { object: 'entitlement_feature', id: res.body.id, mode: 'test', name: 'Priority support', lookupKey: 'Priority_support.v2-1', active: true, createdAt: api.clock.now().toISOString() });
    assert.deepEqual((await get(`${FEATURES}/${res.body.id}`)).body, res.body);
  });

  it('refuses a name or lookup key out of 1 to 80, a lookup key of other characters, unknown fields, no Idempotency-Key', async () => {
    assert.deepEqual(paths(await post(FEATURES, {})), ['lookupKey', 'name']);
    assert.deepEqual(paths(await post(FEATURES, { name: '', lookupKey: 'a' })), ['name']);
    assert.deepEqual(paths(await post(FEATURES, { name: 'x'.repeat(81), lookupKey: 'a' })), ['name']);
    assert.deepEqual(paths(await post(FEATURES, { name: 'x', lookupKey: '' })), ['lookupKey']);
    assert.deepEqual(paths(await post(FEATURES, { name: 'x', lookupKey: 'k'.repeat(81) })), ['lookupKey']);
    for (const bad of ['has space', 'slash/key', 'ü-umlaut', 'colon:key']) assert.deepEqual(paths(await post(FEATURES, { name: 'x', lookupKey: bad })), ['lookupKey'], bad);
    assert.deepEqual(paths(await post(FEATURES, { name: 'x', lookupKey: 'a', active: false })), ['']);
    const noKey = await api.request(FEATURES, { key: keys.sk_test, body: { name: 'x', lookupKey: 'no-ik' } });
    assert.deepEqual([noKey.status, noKey.body.reason], [400, 'idempotency_key_missing']);
    assert.equal((await post(FEATURES, { name: 'x'.repeat(80), lookupKey: 'k'.repeat(80) })).status, 201);
  });

  it('answers 409 feature_exists for a lookup key taken in the mode; the other mode and another account have their own', async () => {
    await feature('exports');
    const again = await post(FEATURES, { name: 'Exports again', lookupKey: 'exports' });
    assert.deepEqual([again.status, again.body.reason], [409, 'feature_exists']);
    // Lookup keys are case-sensitive, as the app's own keys are.
    await feature('Exports');
    assert.equal((await feature('exports', keys.sk_live)).mode, 'live');
    const other = await api.merchant();
    await feature('exports', other.keys.sk_test);
  });

  it('of concurrent creates of one lookup key, one makes the feature and the others answer 409', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => post(FEATURES, { name: 'Race', lookupKey: 'raced-key' })));
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [201, ...Array(11).fill(409)], answers.map((a) => a.text).join('\n'));
    assert.ok(answers.filter((a) => a.status === 409).every((a) => a.body.reason === 'feature_exists'));
    assert.equal(Number((await api.knex('entitlement_features').where({ lookup_key: 'raced-key' }).count())[0]!.count), 1);
  });

  it('lists newest first, a page at a time, only the caller\'s mode', async () => {
    const own = await api.merchant({ activate: true });
    const made = [];
    for (const key of ['a', 'b', 'c']) made.push(await feature(key, own.keys.sk_test));
    await feature('live-one', own.keys.sk_live);
    const list = async (query: string) => (await get(`${FEATURES}${query}`, own.keys.sk_test)).body;
    assert.deepEqual((await list('')).data.map((f: { lookupKey: string }) => f.lookupKey), ['c', 'b', 'a']);
    const first = await list('?limit=2');
    assert.deepEqual([first.data.length, first.hasMore, first.nextCursor], [2, true, made[1].id]);
    assert.deepEqual((await list(`?limit=2&cursor=${first.nextCursor}`)).data, [made[0]]);
    assert.equal((await get(`${FEATURES}?cursor=prod_000000000000000000000000`, own.keys.sk_test)).status, 400);
  });

  it('keeps modes and accounts apart and asks billing permissions of secret keys', async () => {
    const live = await feature('live-only', keys.sk_live);
    const crossed = await get(`${FEATURES}/${live.id}`);
    assert.deepEqual([crossed.status, crossed.body.reason], [404, 'mode_mismatch']);
    const other = await api.merchant();
    assert.equal((await get(`${FEATURES}/${live.id}`, other.keys.sk_test)).status, 404);
    assert.equal((await get(`${FEATURES}/feat_000000000000000000000000`)).status, 404);
    assert.equal((await post(FEATURES, { name: 'x', lookupKey: 'pk' }, keys.pk_test)).body.reason, 'key_not_permitted');
    const reading = (await createApiKey(api.knex, { accountId, kind: 'secret', mode: 'test', permissions: ['billing:read'], now: api.clock.now() })).key;
    assert.equal((await post(FEATURES, { name: 'x', lookupKey: 'read-only' }, reading)).body.reason, 'key_not_permitted');
    assert.equal((await get(FEATURES, reading)).status, 200);
    assert.equal((await get(`/v1/entitlements/active_entitlements?customerId=cus_000000000000000000000000`, reading)).status, 404);
    const prod = await product();
    assert.equal((await post(`/v1/products/${prod.id}/features`, { featureId: live.id }, reading)).body.reason, 'key_not_permitted');
  });

  it('renames, archives and brings back a feature; an archived lookup key names a new feature; bringing the old one back then answers 409', async () => {
    const made = await feature('reports');
    const update = (id: string, body: unknown, key = keys.sk_test) => post(`${FEATURES}/${id}`, body, key);
    const renamed = await update(made.id, { name: 'Monthly reports' });
    assert.deepEqual([renamed.status, renamed.body], [200, { ...made, name: 'Monthly reports' }]);
    assert.deepEqual((await update(made.id, { name: 'Monthly reports', active: true })).body, renamed.body, 'nothing changed');
    assert.deepEqual(paths(await update(made.id, { name: '' })), ['name']);
    assert.deepEqual(paths(await update(made.id, { lookupKey: 'other' })), ['']);
    const archived = await update(made.id, { active: false });
    assert.deepEqual([archived.status, archived.body.active], [200, false]);
    const prod = await product();
    const refused = await post(`/v1/products/${prod.id}/features`, { featureId: made.id });
    assert.deepEqual([refused.status, refused.body.reason, paths(refused)], [400, 'feature_invalid', ['featureId']]);
    // Its lookup key is free again.
    const successor = await feature('reports');
    const back = await update(made.id, { active: true });
    assert.deepEqual([back.status, back.body.reason], [409, 'feature_exists']);
    assert.equal((await get(`${FEATURES}/${made.id}`)).body.active, false, 'left archived');
    await update(successor.id, { active: false });
    assert.deepEqual((await update(made.id, { active: true })).body, { ...renamed.body, active: true });
    const listed = async (query: string) => (await get(`${FEATURES}?limit=100${query}`)).body.data.map((f: { id: string }) => f.id);
    assert.ok((await listed('&active=false')).includes(successor.id));
    assert.ok(!(await listed('&active=false')).includes(made.id));
    assert.ok((await listed('&active=true')).includes(made.id));
    const live = await feature('live-reports', keys.sk_live);
    const crossed = await update(live.id, { active: false });
    assert.deepEqual([crossed.status, crossed.body.reason], [404, 'mode_mismatch']);
    assert.equal((await update('feat_000000000000000000000000', { active: false })).status, 404);
  });

  it('attaches a feature to a product once, lists and detaches it', async () => {
    const prod = await product();
    const [api1, api2] = [await feature('api-calls'), await feature('sso')];
    const attached = await post(`/v1/products/${prod.id}/features`, { featureId: api1.id });
    assert.equal(attached.status, 201, attached.text);
    assert.match(attached.body.id, /^pf_[0-9a-z]{24}$/);
    assert.deepEqual(attached.body, { object: 'product_feature', id: attached.body.id, productId: prod.id, featureId: api1.id, lookupKey: 'api-calls' });
    const again = await post(`/v1/products/${prod.id}/features`, { featureId: api1.id });
    assert.deepEqual([again.status, again.body], [200, attached.body], 'attached already: the same attachment');
    const second = (await post(`/v1/products/${prod.id}/features`, { featureId: api2.id })).body;
    const list = (await get(`/v1/products/${prod.id}/features`)).body;
    assert.deepEqual(list, { object: 'list', data: [second, attached.body], hasMore: false, nextCursor: null });
    const paged = (await get(`/v1/products/${prod.id}/features?limit=1`)).body;
    assert.deepEqual([paged.data, paged.nextCursor], [[second], second.id]);
    assert.deepEqual((await get(`/v1/products/${prod.id}/features?cursor=${second.id}`)).body.data, [attached.body]);

    const removed = await del(`/v1/products/${prod.id}/features/${api1.id}`);
    assert.deepEqual([removed.status, removed.body], [200, { ...attached.body, deleted: true }]);
    assert.deepEqual((await get(`/v1/products/${prod.id}/features`)).body.data, [second]);
    const twice = await del(`/v1/products/${prod.id}/features/${api1.id}`);
    assert.deepEqual([twice.status, twice.body.code], [404, 'NOT_FOUND']);
    assert.equal((await api.request(`/v1/products/${prod.id}/features/${api2.id}`, { method: 'DELETE', key: keys.sk_test })).body.reason, 'idempotency_key_missing');
    // Attached again: a new attachment.
    const back = await post(`/v1/products/${prod.id}/features`, { featureId: api1.id });
    assert.equal(back.status, 201);
    assert.notEqual(back.body.id, attached.body.id);
  });

  it('a feature in the body that is unknown, of the other mode or of another account answers 400 feature_invalid; a product in the path 404 or mode_mismatch', async () => {
    const prod = await product();
    const live = await feature('live-feature', keys.sk_live);
    const foreign = await feature('foreign', (await api.merchant()).keys.sk_test);
    for (const featureId of ['feat_000000000000000000000000', live.id, foreign.id, 'not-an-id']) {
      const res = await post(`/v1/products/${prod.id}/features`, { featureId });
      assert.deepEqual([res.status, res.body.reason, paths(res)], [400, 'feature_invalid', ['featureId']], featureId);
    }
    assert.deepEqual(paths(await post(`/v1/products/${prod.id}/features`, {})), ['featureId']);
    const own = await feature('own-feature');
    const liveProduct = await product(keys.sk_live);
    const crossed = await post(`/v1/products/${liveProduct.id}/features`, { featureId: own.id });
    assert.deepEqual([crossed.status, crossed.body.reason], [404, 'mode_mismatch']);
    assert.equal((await post('/v1/products/prod_000000000000000000000000/features', { featureId: own.id })).status, 404);
    assert.deepEqual([(await get(`/v1/products/${liveProduct.id}/features`)).body.reason], ['mode_mismatch']);
    assert.equal((await get('/v1/products/prod_000000000000000000000000/features')).status, 404);
    // Detach: both ids are in the path.
    const detachLive = await del(`/v1/products/${prod.id}/features/${live.id}`);
    assert.deepEqual([detachLive.status, detachLive.body.reason], [404, 'mode_mismatch']);
    assert.deepEqual([(await del(`/v1/products/${liveProduct.id}/features/${own.id}`)).body.reason], ['mode_mismatch']);
    assert.equal((await del(`/v1/products/${prod.id}/features/feat_000000000000000000000000`)).status, 404);
    assert.equal((await del(`/v1/products/${prod.id}/features/${own.id}`)).status, 404, 'not attached');
  });

  it('active entitlements: customerId required, an unknown or foreign customer 404, the other mode mode_mismatch, none for a new customer', async () => {
    const missing = await get('/v1/entitlements/active_entitlements');
    assert.deepEqual([missing.status, paths(missing)], [400, ['customerId']]);
    assert.equal((await get('/v1/entitlements/active_entitlements?customerId=cus_000000000000000000000000')).status, 404);
    const customer = (await post('/v1/customers', { email: 'nimal@example.com', name: 'Nimal Perera' })).body;
    assert.deepEqual((await get(`/v1/entitlements/active_entitlements?customerId=${customer.id}`)).body, { object: 'list', data: [], hasMore: false, nextCursor: null });
    const crossed = await get(`/v1/entitlements/active_entitlements?customerId=${customer.id}`, keys.sk_live);
    assert.deepEqual([crossed.status, crossed.body.reason], [404, 'mode_mismatch']);
    assert.equal((await get(`/v1/entitlements/active_entitlements?customerId=${customer.id}`, (await api.merchant()).keys.sk_test)).status, 404);
  });
});
