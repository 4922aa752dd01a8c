// Payment links over HTTP: create (a fixed amount or line items, every rule and error), the list
// of the newest 200 with each link's count of payments, and turning a link off.
import assert from 'node:assert/strict';
import { startApiWithMerchant, ik, type TestApi } from '../support/api';
import { createApiKey } from '../../db/api-keys';
import type { MerchantKeys } from '../../db/merchants';
import type { Permission } from '../../domain/api-keys';
import { get, payAtProcessor } from '../checkouts/hosted-flow';
import { payerCheckout } from './link-flow';

const paths = (res: { body: { fields?: { path: string }[] } }) => (res.body.fields ?? []).map((f) => f.path).sort();
const APPROVED = { number: '4111111111111111', expiry: '01/39', cvv: '100' };
const DECLINED = { number: '4111111111111111', expiry: '05/39', cvv: '100' };
const DETAILS = { name: 'Nimal Perera', email: 'nimal@example.com' };

describe('payment links API', () => {
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant()));
  after(() => api.close());

  const create = (body: unknown, key = keys.sk_test, idempotencyKey = ik()) => api.request('/v1/payment_links', { key, body, idempotencyKey });

  it('creates an active fixed-amount link, every field present, its url a page of the service', async () => {
    const res = await create({ amountCents: 250000, description: 'Temple fund', reference: 'fund-2025', successUrl: 'https://shop.example/thanks', saveCard: true });
    assert.equal(res.status, 201, res.text);
    const link = res.body;
    assert.match(link.id, /^plink_[0-9a-z]{24}$/);
    assert.deepEqual(link, {
      object: 'payment_link', id: link.id, mode: 'test', active: true, url: `${api.url}/pay/${link.id}`, amountCents: 250000, currency: 'LKR',
      description: 'Temple fund', lineItems: null, locale: 'en', reference: 'fund-2025', successUrl: 'https://shop.example/thanks', saveCard: true,
      paymentCount: 0, createdAt: api.clock.now().toISOString(), deactivatedAt: null,
    });
    assert.equal((await get(link.url)).status, 200);
  });

  it('line items: the total is the amount, a summary the description unless given; the url in the link\'s language', async () => {
    const lineItems = [{ name: 'Tea', description: '250 g', unitAmountCents: 120000, quantity: 2 }, { name: 'Kavum', unitAmountCents: 5000, quantity: 3 }];
    const link = (await create({ lineItems, locale: 'si' })).body;
    assert.equal(link.amountCents, 255000);
    assert.equal(link.description, '2 × Tea, 3 × Kavum');
    assert.deepEqual(link.lineItems, lineItems);
    assert.equal(link.url, `${api.url}/si/pay/${link.id}`);
    const described = (await create({ lineItems, description: 'Tea party', locale: 'ta' })).body;
    assert.equal(described.description, 'Tea party');
    assert.equal(described.url, `${api.url}/ta/pay/${described.id}`);
  });

  it('refuses what a checkout refuses: amounts, line items, the purchase rule, return URLs, unknown fields', async () => {
    const reason = async (body: unknown) => {
      const res = await create(body);
      return { status: res.status, reason: res.body.reason ?? res.body.code, paths: paths(res) };
    };
    assert.deepEqual(await reason({ amountCents: 999, description: 'x' }), { status: 400, reason: 'amount', paths: ['amountCents'] });
    assert.deepEqual(await reason({ amountCents: 100_000_001, description: 'x' }), { status: 400, reason: 'amount', paths: ['amountCents'] });
    assert.equal((await create({ amountCents: 1000, description: 'the least' })).status, 201);
    assert.equal((await create({ amountCents: 100_000_000, description: 'the most' })).status, 201);
    // A fraction is refused, never rounded.
    assert.deepEqual((await reason({ amountCents: 1000.5, description: 'x' })).paths, ['amountCents']);
    assert.deepEqual(await reason({ amountCents: 5000 }), { status: 400, reason: 'VALIDATION_FAILED', paths: ['description'] });
    assert.deepEqual(await reason({ amountCents: 5000, description: 'x'.repeat(121) }), { status: 400, reason: 'VALIDATION_FAILED', paths: ['description'] });
    assert.deepEqual(await reason({ description: 'nothing to pay' }), { status: 400, reason: 'VALIDATION_FAILED', paths: ['amountCents'] });
    const tea = { name: 'Tea', unitAmountCents: 100000, quantity: 1 };
    assert.deepEqual((await reason({ amountCents: 5000, description: 'x', lineItems: [tea] })).paths, ['lineItems']);
    // The total 900 cents: each line valid, the sum under a payment's least.
    assert.deepEqual(await reason({ lineItems: [{ name: 'Tea', unitAmountCents: 300, quantity: 3 }] }), { status: 400, reason: 'amount', paths: ['lineItems'] });
    assert.deepEqual(await reason({ lineItems: [{ name: 'Tea', unitAmountCents: 100_000_000, quantity: 2 }] }), { status: 400, reason: 'amount', paths: ['lineItems'] });
    assert.deepEqual((await reason({ lineItems: [] })).paths, ['lineItems']);
    assert.deepEqual((await reason({ lineItems: Array.from({ length: 11 }, () => tea) })).paths, ['lineItems']);
    assert.deepEqual((await reason({ lineItems: [{ ...tea, quantity: 100 }] })).paths, ['lineItems[0].quantity']);
    assert.deepEqual((await reason({ lineItems: [{ ...tea, unitAmountCents: 99 }] })).paths, ['lineItems[0].unitAmountCents']);
    assert.deepEqual((await reason({ lineItems: [{ ...tea, name: '' }] })).paths, ['lineItems[0].name']);
    assert.deepEqual((await reason({ lineItems: [{ unitAmountCents: 1000, quantity: 1 }] })).paths, ['lineItems[0].name']);
    const simple = { amountCents: 5000, description: 'Tea' };
    assert.deepEqual(await reason({ ...simple, successUrl: 'http://shop.example/thanks' }), { status: 400, reason: 'VALIDATION_FAILED', paths: ['successUrl'] });
    assert.deepEqual((await reason({ ...simple, successUrl: 'javascript://alert(1)' })).paths, ['successUrl']);
    assert.equal((await create({ ...simple, successUrl: 'http://localhost:8080/thanks' })).status, 201);
    assert.equal((await create({ ...simple, successUrl: 'myapp://paid' })).status, 201);
    assert.deepEqual((await reason({ ...simple, reference: 'r'.repeat(65) })).paths, ['reference']);
    assert.deepEqual((await reason({ ...simple, locale: 'fr' })).paths, ['locale']);
    assert.deepEqual((await reason({ ...simple, saveCard: 'yes' })).paths, ['saveCard']);
    // A checkout's field a link does not take: its payers give their own details and way back.
    assert.deepEqual(await reason({ ...simple, cancelUrl: 'https://shop.example/cart' }), { status: 400, reason: 'VALIDATION_FAILED', paths: [''] });
    assert.deepEqual((await reason({ ...simple, customer: { name: 'Sita', email: 'sita@example.com' } })).paths, ['']);
  });

  it('keys, permissions, modes, the Idempotency-Key and saved cards', async () => {
    const simple = { amountCents: 5000, description: 'Tea' };
    assert.equal((await create(simple, keys.pk_test)).body.reason, 'key_not_permitted', 'secret keys only');
    assert.equal((await api.request('/v1/payment_links', { key: keys.pk_test })).body.reason, 'key_not_permitted');
    assert.equal((await api.request('/v1/payment_links', { key: keys.sk_test, body: simple })).body.reason, 'idempotency_key_missing');
    const key = ik();
    const first = await create(simple, keys.sk_test, key);
    const again = await create(simple, keys.sk_test, key);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal((await create({ ...simple, amountCents: 6000 }, keys.sk_test, key)).body.reason, 'idempotency_key_reused');
    assert.equal((await api.request('/v1/payment_links', { key: keys.sk_test, raw: JSON.stringify(simple), idempotencyKey: ik() })).body.reason, 'json_required');

    // Live: refused before activation; saved cards must be on to offer keeping the card.
    const fresh = await api.merchant();
    assert.equal((await create(simple, fresh.keys.sk_live)).body.reason, 'merchant_not_live');
    assert.equal((await create(simple, fresh.keys.sk_test)).status, 201, 'test links before activation');
    const live = (await create({ ...simple, saveCard: true }, keys.sk_live));
    assert.equal(live.status, 409);
    assert.equal(live.body.reason, 'saved_cards_off');
    assert.equal((await create({ ...simple, saveCard: true }, keys.sk_test)).status, 201, 'test links may offer it');
    const liveLink = (await create(simple, keys.sk_live)).body;
    assert.equal(liveLink.mode, 'live');

    // A key with checkouts:create alone makes and turns off links, but cannot list them; one with
    // payments:read alone lists them, but cannot make them.
    const { accountId } = await api.merchant({ activate: true });
    const keyWith = async (permission: Permission) =>
      (await createApiKey(api.knex, { accountId, kind: 'secret', mode: 'test', permissions: [permission], now: api.clock.now() })).key;
    const creating = await keyWith('checkouts:create');
    const reading = await keyWith('payments:read');
    const made = await create(simple, creating);
    assert.equal(made.status, 201);
    assert.equal((await api.request(`/v1/payment_links/${made.body.id}`, { method: 'DELETE', key: creating })).status, 200);
    assert.equal((await api.request('/v1/payment_links', { key: creating })).body.reason, 'key_not_permitted');
    assert.equal((await api.request('/v1/payment_links', { key: reading })).status, 200);
    assert.equal((await create(simple, reading)).body.reason, 'key_not_permitted');
    assert.equal((await api.request(`/v1/payment_links/${made.body.id}`, { method: 'DELETE', key: reading })).body.reason, 'key_not_permitted');
  });

  it('lists the newest 200, newest first, with the payments each took; hasMore always false; per mode', async () => {
    const { keys: k } = await api.merchant({ activate: true });
    const made: string[] = [];
    for (let i = 0; i < 203; i++) {
      made.push((await create({ amountCents: 1000 + i, description: `link ${i}` }, k.sk_test)).body.id);
      await api.clock.advance(1);
    }
    const liveLink = (await create({ amountCents: 5000, description: 'live' }, k.sk_live)).body;
    const list = await api.request('/v1/payment_links', { key: k.sk_test });
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.object, 'list');
    assert.equal(list.body.hasMore, false);
    assert.equal(list.body.nextCursor, null);
    assert.deepEqual(list.body.data.map((l: any) => l.id), made.slice(3).reverse(), 'the newest 200, newest first');
    assert.equal(list.body.data[0].amountCents, 1202);
    assert.deepEqual((await api.request('/v1/payment_links', { key: k.sk_live })).body.data.map((l: any) => l.id), [liveLink.id]);
    // No pages: the list takes no query parameters.
    const paged = await api.request('/v1/payment_links?limit=10', { key: k.sk_test });
    assert.equal(paged.status, 400);
    assert.deepEqual(paths(paged), ['']);

    // The newest link paid twice, and one payer declined: it took 2 payments. The next one none.
    const newest = made[made.length - 1]!;
    for (const card of [APPROVED, APPROVED, DECLINED]) {
      const checkout = await payerCheckout(api, `${api.url}/pay/${newest}`);
      await get(await payAtProcessor(api, checkout, card, DETAILS));
    }
    await api.workflows.settle();
    const counted = (await api.request('/v1/payment_links', { key: k.sk_test })).body.data;
    assert.deepEqual(counted.slice(0, 2).map((l: any) => l.paymentCount), [2, 0]);
    const payments = (await api.request('/v1/payments', { key: k.sk_test })).body.data;
    assert.deepEqual(payments.map((p: any) => [p.paymentLinkId, p.status, p.amountCents]), [
      [newest, 'failed', 1202], [newest, 'succeeded', 1202], [newest, 'succeeded', 1202],
    ]);
  });

  it('DELETE turns a link off and answers it; again, the same link; 404 for another account\'s or no link; mode_mismatch', async () => {
    const link = (await create({ amountCents: 5000, description: 'Tea' })).body;
    const turnedOffAt = api.clock.now().toISOString();
    const off = await api.request(`/v1/payment_links/${link.id}`, { method: 'DELETE', key: keys.sk_test });
    assert.equal(off.status, 200, off.text);
    assert.deepEqual(off.body, { ...link, active: false, deactivatedAt: turnedOffAt });
    await api.clock.advance(60_000);
    const again = await api.request(`/v1/payment_links/${link.id}`, { method: 'DELETE', key: keys.sk_test });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, off.body, 'the same link: still off since the first time');
    const listed = (await api.request('/v1/payment_links', { key: keys.sk_test })).body.data.find((l: any) => l.id === link.id);
    assert.deepEqual(listed, off.body);

    const other = await api.merchant({ activate: true });
    const notYours = await api.request(`/v1/payment_links/${link.id}`, { method: 'DELETE', key: other.keys.sk_test });
    assert.equal(notYours.status, 404);
    assert.equal(notYours.body.code, 'NOT_FOUND');
    const mismatch = await api.request(`/v1/payment_links/${link.id}`, { method: 'DELETE', key: keys.sk_live });
    assert.equal(mismatch.status, 404);
    assert.equal(mismatch.body.reason, 'mode_mismatch');
    assert.equal((await api.request(`/v1/payment_links/plink_${'0'.repeat(24)}`, { method: 'DELETE', key: keys.sk_test })).body.code, 'NOT_FOUND');
    assert.equal((await api.request('/v1/payment_links/chk_000000000000000000000000', { method: 'DELETE', key: keys.sk_test })).status, 404);
    assert.equal((await api.request(`/v1/payment_links/${link.id}`, { method: 'DELETE', key: keys.pk_test })).body.reason, 'key_not_permitted');
  });

  it('is in the OpenAPI document from the schemas it validates with', async () => {
    const doc = (await api.request('/v1/openapi.json')).body;
    const create = doc.paths['/v1/payment_links'].post;
    assert.equal(create.operationId, 'createPaymentLink');
    assert.ok(create.requestBody.content['application/json'].schema.properties.lineItems);
    assert.ok(create.responses['400']);
    assert.ok(create.responses['409']);
    assert.equal(doc.paths['/v1/payment_links'].get.operationId, 'listPaymentLinks');
    assert.equal(doc.paths['/v1/payment_links/{id}'].delete.operationId, 'deactivatePaymentLink');
    assert.ok(doc.components.schemas.PaymentLink.properties.paymentCount);
  });
});
