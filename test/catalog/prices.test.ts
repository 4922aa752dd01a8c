// Prices over HTTP: every scheme and rule of the spec's create body, every error reason, the list
// with products embedded and its `active` filter, and archiving.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import type { PricedRow } from '../../db/prices';
import { PRICE_LIMITS } from '../../domain/pricing';
import { archivePrice } from '../../services/prices/archive';
import { priceUnavailable } from '../../services/prices/usable';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';

const paths = (res: { body: { fields?: { path: string }[] } }) => (res.body.fields ?? []).map((f) => f.path).sort();

describe('prices API', () => {
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant()));
  after(() => api.close());

  const create = (body: unknown, key = keys.sk_test) => api.request('/v1/prices', { key, body, idempotencyKey: ik() });
  const refusal = async (body: unknown) => {
    const res = await create(body);
    return { status: res.status, reason: res.body.reason ?? res.body.code, paths: paths(res) };
  };
  const product = async (name = 'Pro plan', key = keys.sk_test) => (await api.request('/v1/products', { key, body: { name }, idempotencyKey: ik() })).body;

  it('a monthly per-unit price with a new product: every field', async () => {
    const res = await create({ product: { name: 'Pro plan', description: 'Priority support' }, unitAmountCents: 150000, interval: 'month', nickname: 'Pro monthly' });
    assert.equal(res.status, 201, res.text);
    const price = res.body;
    assert.match(price.id, /^price_[0-9a-z]{24}$/);
    assert.match(price.product.id, /^prod_[0-9a-z]{24}$/);
    assert.deepEqual(price, {
      object: 'price', id: price.id, mode: 'test', product: { id: price.product.id, name: 'Pro plan', description: 'Priority support' },
      unitAmountCents: 150000, currency: 'LKR', interval: 'month', intervalCount: 1, nickname: 'Pro monthly', active: true,
      billingScheme: 'per_unit', tiersMode: null, tiers: null, packageSize: null, usageType: 'licensed', meterId: null,
      createdAt: api.clock.now().toISOString(),
    });
    assert.deepEqual((await api.request(`/v1/prices/${price.id}`, { key: keys.sk_test })).body, price);
    assert.equal((await api.request(`/v1/products/${price.product.id}`, { key: keys.sk_test })).body.name, 'Pro plan');
  });

  it('package and tiered prices of an existing product, every 3 months or yearly', async () => {
    const { id: productId } = await product('Seats');
    const pack = (await create({ productId, billingScheme: 'package', unitAmountCents: 500, packageSize: 10, interval: 'month', intervalCount: 3 })).body;
    assert.deepEqual([pack.billingScheme, pack.unitAmountCents, pack.packageSize, pack.intervalCount, pack.product.name], ['package', 500, 10, 3, 'Seats']);
    const tiers = [{ upTo: 5, unitAmountCents: 1000 }, { upTo: 10, unitAmountCents: 800, flatAmountCents: 500 }, { upTo: null, unitAmountCents: 600 }];
    const tiered = await create({ productId, billingScheme: 'tiered', tiersMode: 'volume', tiers, interval: 'year' });
    assert.equal(tiered.status, 201, tiered.text);
    assert.deepEqual([tiered.body.unitAmountCents, tiered.body.tiersMode, tiered.body.tiers], [0, 'volume', [
      { upTo: 5, unitAmountCents: 1000, flatAmountCents: 0 },
      { upTo: 10, unitAmountCents: 800, flatAmountCents: 500 },
      { upTo: null, unitAmountCents: 600, flatAmountCents: 0 },
    ]]);
  });

  it('a tier\'s upTo is bounded: 2^63 is refused naming the field, the maximum is stored and read back exactly', async () => {
    const { id: productId } = await product('Bounded');
    const tiered = (upTo: string) => api.request('/v1/prices', {
      key: keys.sk_test,
      idempotencyKey: ik(),
      headers: { 'content-type': 'application/json' },
      // Raw, so the number reaches the server as typed (JavaScript would round it here).
      raw: `{"productId":"${productId}","interval":"month","billingScheme":"tiered","tiersMode":"graduated","tiers":[{"upTo":${upTo},"unitAmountCents":1000},{"upTo":null,"unitAmountCents":900}]}`,
    });
    for (const upTo of ['9223372036854775808', '9007199254740993', String(PRICE_LIMITS.maxTierUpTo + 1)]) {
      const res = await tiered(upTo);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      assert.ok(res.body.fields.some((f: { path: string; message: string }) => f.path === 'tiers[0].upTo' && f.message === `Must be <= ${PRICE_LIMITS.maxTierUpTo}.`), res.text);
    }
    assert.equal(Number((await api.knex('prices').where({ product_id: productId }).count('* as n').first())!.n), 0);
    const max = await tiered(String(PRICE_LIMITS.maxTierUpTo));
    assert.equal(max.status, 201, max.text);
    assert.equal(max.body.tiers[0].upTo, PRICE_LIMITS.maxTierUpTo);
    assert.equal((await api.request(`/v1/prices/${max.body.id}`, { key: keys.sk_test })).body.tiers[0].upTo, PRICE_LIMITS.maxTierUpTo);
    const stored = await api.knex.raw<{ rows: { up_to: string }[] }>("select tiers->0->>'upTo' as up_to from prices where id = ?", [max.body.id]);
    assert.equal(stored.rows[0]!.up_to, '1000000000');
  });

  it('price_invalid: terms that price nothing, each with its field', async () => {
    const month = { product: { name: 'x' }, interval: 'month' };
    assert.deepEqual(await refusal({ ...month, unitAmountCents: 999 }), { status: 400, reason: 'price_invalid', paths: ['unitAmountCents'] });
    assert.deepEqual(await refusal({ ...month }), { status: 400, reason: 'price_invalid', paths: ['unitAmountCents'] });
    assert.deepEqual(await refusal({ ...month, billingScheme: 'package', unitAmountCents: 500 }), { status: 400, reason: 'price_invalid', paths: ['packageSize'] });
    assert.deepEqual(await refusal({ ...month, billingScheme: 'tiered', tiersMode: 'graduated', unitAmountCents: 1000, tiers: [{ upTo: 5, unitAmountCents: 1 }, { upTo: null, unitAmountCents: 1 }] }), {
      status: 400, reason: 'price_invalid', paths: ['unitAmountCents'],
    });
    assert.deepEqual(await refusal({ ...month, billingScheme: 'tiered', tiersMode: 'graduated', tiers: [{ upTo: null, unitAmountCents: 1 }] }), { status: 400, reason: 'price_invalid', paths: ['tiers'] });
    assert.deepEqual(await refusal({ ...month, billingScheme: 'tiered', tiersMode: 'graduated', tiers: [{ upTo: 5, unitAmountCents: 1 }, { upTo: 4, unitAmountCents: 1 }, { upTo: null, unitAmountCents: 1 }] }), {
      status: 400, reason: 'price_invalid', paths: ['tiers[1].upTo'],
    });
    assert.deepEqual(await refusal({ ...month, billingScheme: 'tiered', tiersMode: 'volume', tiers: [{ upTo: 5, unitAmountCents: 1 }, { upTo: 9, unitAmountCents: 1 }] }), { status: 400, reason: 'price_invalid', paths: ['tiers[1].upTo'] });
    assert.deepEqual(await refusal({ ...month, unitAmountCents: 1000, meterId: 'mtr_x' }), { status: 400, reason: 'price_invalid', paths: ['meterId'] });
    // Metered and package prices may be under 1000 cents.
    assert.equal((await create({ ...month, billingScheme: 'package', unitAmountCents: 1, packageSize: 2 })).status, 201);
  });

  it('meter_invalid: a metered price needs an active meter, and none exists yet', async () => {
    const month = { product: { name: 'API calls' }, interval: 'month', usageType: 'metered', unitAmountCents: 5 };
    assert.deepEqual(await refusal(month), { status: 400, reason: 'meter_invalid', paths: ['meterId'] });
    assert.deepEqual(await refusal({ ...month, meterId: 'mtr_0mw8a3k2x9q1c7v5b4n6m2z8' }), { status: 400, reason: 'meter_invalid', paths: ['meterId'] });
  });

  it('the shape: interval required, intervalCount 1 to 12, amounts 0 to 100000000, nickname up to 80', async () => {
    const base = { product: { name: 'x' }, unitAmountCents: 1000 };
    assert.deepEqual((await refusal(base)).paths, ['interval']);
    assert.deepEqual((await refusal({ ...base, interval: 'fortnight' })).paths, ['interval']);
    assert.deepEqual((await refusal({ ...base, interval: 'month', intervalCount: 0 })).paths, ['intervalCount']);
    assert.deepEqual((await refusal({ ...base, interval: 'month', intervalCount: 13 })).paths, ['intervalCount']);
    assert.equal((await create({ ...base, interval: 'month', intervalCount: 12 })).status, 201);
    assert.deepEqual((await refusal({ ...base, interval: 'month', unitAmountCents: 100_000_001 })).paths, ['unitAmountCents']);
    assert.deepEqual((await refusal({ ...base, interval: 'month', nickname: 'n'.repeat(81) })).paths, ['nickname']);
  });

  it('the product: one of productId and product; yours, in this mode, active', async () => {
    const base = { unitAmountCents: 1000, interval: 'month' };
    assert.deepEqual(await refusal(base), { status: 400, reason: 'VALIDATION_FAILED', paths: ['productId'] });
    const { id: productId } = await product('Both');
    assert.deepEqual(await refusal({ ...base, productId, product: { name: 'x' } }), { status: 400, reason: 'VALIDATION_FAILED', paths: ['product'] });
    assert.deepEqual(await refusal({ ...base, productId: 'prod_000000000000000000000000' }), { status: 404, reason: 'NOT_FOUND', paths: [] });
    const live = await product('Live', keys.sk_live);
    assert.deepEqual(await refusal({ ...base, productId: live.id }), { status: 404, reason: 'mode_mismatch', paths: [] });
    const { keys: other } = await api.merchant();
    const theirs = await product('Theirs', other.sk_test);
    assert.deepEqual(await refusal({ ...base, productId: theirs.id }), { status: 404, reason: 'NOT_FOUND', paths: [] });
    await api.request(`/v1/products/${productId}`, { key: keys.sk_test, body: { active: false }, idempotencyKey: ik() });
    assert.deepEqual(await refusal({ ...base, productId }), { status: 409, reason: 'price_unavailable', paths: [] });
  });

  it('lists with products embedded, newest first, by `active`; an archived price stays readable', async () => {
    const { keys: own, accountId } = await api.merchant();
    const basic = (await create({ product: { name: 'Basic' }, unitAmountCents: 50000, interval: 'month' }, own.sk_test)).body;
    const pro = (await create({ product: { name: 'Pro' }, unitAmountCents: 150000, interval: 'month' }, own.sk_test)).body;
    const archived = await archivePrice({ db: api.knex, clock: api.clock }, basic.id);
    assert.equal(archived.account_id, accountId);
    assert.equal(archived.active, false);
    const list = async (query: string) => (await api.request(`/v1/prices${query}`, { key: own.sk_test })).body;
    const all = await list('');
    assert.deepEqual(all.data.map((p: { id: string; active: boolean; product: { name: string } }) => [p.id, p.active, p.product.name]), [[pro.id, true, 'Pro'], [basic.id, false, 'Basic']]);
    assert.deepEqual((await list('?active=true')).data.map((p: { id: string }) => p.id), [pro.id]);
    assert.deepEqual((await list('?active=false')).data.map((p: { id: string }) => p.id), [basic.id]);
    const first = await list('?limit=1');
    assert.deepEqual([first.hasMore, first.nextCursor], [true, pro.id]);
    assert.deepEqual((await list(`?limit=1&cursor=${pro.id}`)).data.map((p: { id: string }) => p.id), [basic.id]);
    assert.equal((await api.request(`/v1/prices/${basic.id}`, { key: own.sk_test })).body.active, false);
    // A product renamed shows its new name on its prices.
    await api.request(`/v1/products/${pro.product.id}`, { key: own.sk_test, body: { name: 'Pro plan' }, idempotencyKey: ik() });
    assert.equal((await api.request(`/v1/prices/${pro.id}`, { key: own.sk_test })).body.product.name, 'Pro plan');
  });

  it('asks billing permissions of secret keys', async () => {
    assert.equal((await create({ product: { name: 'x' }, unitAmountCents: 1000, interval: 'month' }, keys.pk_test)).body.reason, 'key_not_permitted');
    assert.equal((await api.request('/v1/prices', { key: keys.pk_test })).body.reason, 'key_not_permitted');
  });
});

describe('a price usable for a subscription', () => {
  const row = (changes: Partial<PricedRow> = {}): PricedRow => ({
    id: 'price_1', account_id: 'acct_1', mode: 'test', product_id: 'prod_1', unit_amount_cents: 1000, interval: 'month', interval_count: 1, nickname: null,
    active: true, billing_scheme: 'per_unit', tiers_mode: null, tiers: null, package_size: null, usage_type: 'licensed', meter_id: null,
    created_at: new Date(0), archived_at: null, product_name: 'Pro', product_description: null, product_active: true, ...changes,
  });
  const reason = (price: PricedRow) => priceUnavailable(price, 'test')?.reason ?? null;

  it('is active, of an active product, in the mode asked for: else price_unavailable', () => {
    assert.equal(reason(row()), null);
    assert.equal(reason(row({ active: false })), 'price_unavailable');
    assert.equal(reason(row({ product_active: false })), 'price_unavailable');
    assert.equal(reason(row({ mode: 'live' })), 'price_unavailable');
  });
});
