import assert from 'node:assert/strict';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { colomboMonth } from '../../domain/time';
import { startApiWithMerchant, ik, type TestApi } from '../support/api';
import type { MerchantKeys } from '../../db/merchants';
import { get, payAtProcessor, postPay } from './hosted-flow';

const MINUTE = 60_000;
const paths = (res: { body: { fields?: { path: string }[] } }) => (res.body.fields ?? []).map((f) => f.path).sort();

describe('checkouts and payments API', () => {
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant()));
  after(() => api.close());

  const create = (body: unknown, key = keys.sk_test, idempotencyKey = ik()) => api.request('/v1/checkouts', { key, body, idempotencyKey });
  const simple = { amountCents: 350000, description: 'Tea for two' };

  it('creates an open checkout with its payment, every field present, with a publishable key', async () => {
    const res = await create({ ...simple, reference: 'order-1', customer: { name: 'Nimal Perera', email: 'nimal@example.com', phone: '077-123 4567' } }, keys.pk_test);
    assert.equal(res.status, 201, res.text);
    const c = res.body;
    assert.match(c.id, /^chk_[0-9a-z]{24}$/);
    assert.equal(c.object, 'checkout');
    assert.equal(c.mode, 'test');
    assert.equal(c.status, 'open');
    assert.equal(c.url, `${api.url}/checkout/${c.id}`);
    assert.equal(Date.parse(c.expiresAt) - Date.parse(c.createdAt), 30 * MINUTE);
    assert.equal(c.expiresAt, new Date(api.clock.now().getTime() + 30 * MINUTE).toISOString());
    const p = c.payment;
    assert.match(p.id, /^pay_[0-9a-z]{24}$/);
    assert.deepEqual({ ...p, id: undefined, createdAt: undefined }, {
      object: 'payment', id: undefined, mode: 'test', status: 'requires_payment_method', amountCents: 350000, currency: 'LKR',
      description: 'Tea for two', reference: 'order-1', customer: { name: 'Nimal Perera', email: 'nimal@example.com', phone: '+94771234567' },
      card: null, cardSave: 'not_requested', feeCents: null, netCents: null, refundedCents: 0, failureMessage: null,
      paymentLinkId: null, savedCardId: null, invoiceId: null, checkoutId: c.id, checkoutPageId: null, order: null,
      delivery: null, customFields: null, customerTaxId: null, termsAcceptedAt: null, createdAt: undefined, succeededAt: null,
    });
    const got = await api.request(`/v1/checkouts/${c.id}`, { key: keys.sk_test });
    assert.deepEqual(got.body, c);
    const payment = await api.request(`/v1/payments/${p.id}`, { key: keys.sk_test });
    assert.deepEqual(payment.body, p);
    assert.equal(api.engine.describe(`checkout/${c.id}`)?.status, 'RUNNING', 'the lifetime workflow started');
  });

  it('replays a repeated Idempotency-Key without a second checkout', async () => {
    const key = ik();
    const first = await create(simple, keys.sk_test, key);
    const again = await create(simple, keys.sk_test, key);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal((await create({ ...simple, amountCents: 1000 }, keys.sk_test, key)).body.reason, 'idempotency_key_reused');
    // Refused by the handler before its write: answered from the held key, as if claimed first.
    const tooLittle = { lineItems: [{ name: 'Tea', unitAmountCents: 100, quantity: 1 }] };
    assert.equal((await create(tooLittle, keys.sk_test, key)).body.reason, 'idempotency_key_reused');
    assert.equal((await create(tooLittle, keys.sk_test, ik())).body.reason, 'amount');
    assert.equal((await api.request('/v1/checkouts', { key: keys.sk_test, body: simple })).body.reason, 'idempotency_key_missing');
  });

  it('takes amounts from 1000 to 100000000 cents; outside is reason amount; a fraction is refused, never rounded', async () => {
    assert.equal((await create({ amountCents: 1000, description: 'x' })).status, 201);
    assert.equal((await create({ amountCents: 100_000_000, description: 'x' })).status, 201);
    for (const amountCents of [999, 100_000_001, 0, -5000]) {
      const res = await create({ amountCents, description: 'x' });
      assert.equal(res.status, 400);
      assert.equal(res.body.reason, 'amount', String(amountCents));
      assert.deepEqual(paths(res), ['amountCents']);
    }
    const fraction = await create({ amountCents: 1500.5, description: 'x' });
    assert.equal(fraction.status, 400);
    assert.equal(fraction.body.code, 'VALIDATION_FAILED');
    assert.deepEqual(paths(fraction), ['amountCents']);
    assert.equal((await create({ amountCents: '1500', description: 'x' })).status, 400);
  });

  it('needs a description with amountCents (1 to 120 characters), and amountCents or lineItems', async () => {
    assert.deepEqual(paths(await create({ amountCents: 5000 })), ['description']);
    assert.deepEqual(paths(await create({ amountCents: 5000, description: '' })), ['description']);
    assert.deepEqual(paths(await create({ amountCents: 5000, description: 'x'.repeat(121) })), ['description']);
    assert.deepEqual(paths(await create({ description: 'nothing to pay' })), ['amountCents']);
    assert.deepEqual(paths(await create({ ...simple, colour: 'red' })), ['']);
  });

  it('builds the order from line items (line-<n>, subtotal, total) and a summary description', async () => {
    const res = await create({
      lineItems: [
        { name: 'Ceylon tea', description: '250 g', unitAmountCents: 120000, quantity: 2 },
        { name: 'Kavum', unitAmountCents: 5000, quantity: 3 },
      ],
    });
    assert.equal(res.status, 201, res.text);
    const p = res.body.payment;
    assert.equal(p.amountCents, 255000);
    assert.equal(p.description, '2 × Ceylon tea, 3 × Kavum');
    assert.deepEqual(p.order, {
      lines: [
        { id: 'line-1', name: 'Ceylon tea', description: '250 g', quantity: 2, unitAmountCents: 120000, amountCents: 240000, suggested: false },
        { id: 'line-2', name: 'Kavum', quantity: 3, unitAmountCents: 5000, amountCents: 15000, suggested: false },
      ],
      subtotalCents: 255000, discount: null, shipping: null, tax: null, totalCents: 255000,
    });
    const described = await create({ lineItems: [{ name: 'Kavum', unitAmountCents: 5000, quantity: 1 }], description: 'Sweets' });
    assert.equal(described.body.payment.description, 'Sweets');
    const long = await create({ lineItems: Array.from({ length: 10 }, (_, i) => ({ name: `A rather long product name number ${i}`, unitAmountCents: 1000, quantity: 1 })) });
    assert.equal(long.body.payment.description.length, 120);
    assert.ok(long.body.payment.description.endsWith('…'));
  });

  it('refuses line items out of their bounds, together with amountCents, or totalling outside the range (amount)', async () => {
    const line = { name: 'Tea', unitAmountCents: 1000, quantity: 1 };
    assert.deepEqual(paths(await create({ lineItems: [] })), ['lineItems']);
    assert.deepEqual(paths(await create({ lineItems: Array(11).fill(line) })), ['lineItems']);
    assert.deepEqual(paths(await create({ lineItems: [{ ...line, unitAmountCents: 99 }] })), ['lineItems[0].unitAmountCents']);
    assert.deepEqual(paths(await create({ lineItems: [{ ...line, quantity: 100 }] })), ['lineItems[0].quantity']);
    assert.deepEqual(paths(await create({ lineItems: [{ ...line, quantity: 0 }] })), ['lineItems[0].quantity']);
    assert.deepEqual(paths(await create({ lineItems: [{ unitAmountCents: 1000, quantity: 1 }] })), ['lineItems[0].name']);
    assert.deepEqual(paths(await create({ lineItems: [{ ...line, name: 'x'.repeat(81) }] })), ['lineItems[0].name']);
    assert.deepEqual(paths(await create({ lineItems: [line], amountCents: 1000, description: 'x' })), ['lineItems']);
    const low = await create({ lineItems: [{ ...line, unitAmountCents: 100, quantity: 9 }] });
    assert.equal(low.body.reason, 'amount');
    const high = await create({ lineItems: [{ ...line, unitAmountCents: 100_000_000, quantity: 2 }] });
    assert.equal(high.body.reason, 'amount');
  });

  it('prefixes the url with /si or /ta for those locales', async () => {
    for (const locale of ['si', 'ta'] as const) {
      const res = await create({ ...simple, locale });
      assert.equal(res.body.url, `${api.url}/${locale}/checkout/${res.body.id}`);
      assert.equal((await get(res.body.url)).status, 200);
    }
    assert.deepEqual(paths(await create({ ...simple, locale: 'fr' })), ['locale']);
  });

  it('checks the customer: name 2 to 80, email, a Sri Lankan phone normalised to +94', async () => {
    const ok = await create({ ...simple, customer: { name: 'Sita', email: 's@example.com', phone: '011 234 5678' } });
    assert.equal(ok.body.payment.customer.phone, '+94112345678');
    assert.equal((await create({ ...simple, customer: { name: 'Sita', email: 's@example.com' } })).body.payment.customer.phone, null);
    assert.deepEqual(paths(await create({ ...simple, customer: { name: 'S', email: 's@example.com' } })), ['customer.name']);
    assert.deepEqual(paths(await create({ ...simple, customer: { name: 'Sita' } })), ['customer.email']);
    assert.deepEqual(paths(await create({ ...simple, customer: { name: 'Sita', email: 's@example.com', phone: '+1 415 555 0100' } })), ['customer.phone']);
    assert.equal((await create({ ...simple, reference: 'r'.repeat(65) })).status, 400);
  });

  it('takes https, http on localhost, or an app URL scheme as successUrl and cancelUrl', async () => {
    for (const url of ['https://shop.example/done', 'http://localhost:8080/done', 'http://127.0.0.1/x', 'myapp://paid?x=1']) {
      const res = await create({ ...simple, successUrl: url, cancelUrl: url });
      assert.equal(res.status, 201, url);
      assert.equal(res.body.successUrl, url);
    }
    for (const url of ['http://shop.example/done', 'javascript://alert(1)', 'ftp://x.example/', 'not a url', 'data:text/html,hi', `https://x.example/${'a'.repeat(2000)}`]) {
      assert.deepEqual(paths(await create({ ...simple, successUrl: url, cancelUrl: url })), ['cancelUrl', 'successUrl'], url);
    }
  });

  it('documents the body exactly: it fits the document if and only if it is taken (line item totals aside)', async () => {
    const doc = (await api.request('/v1/openapi.json')).body;
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const fits = ajv.compile(doc.paths['/v1/checkouts'].post.requestBody.content['application/json'].schema);
    const line = { name: 'Tea', unitAmountCents: 1000, quantity: 1 };
    const bodies = [
      simple,
      { lineItems: [line] },
      { lineItems: [line], description: 'Tea' },
      {},
      { description: 'nothing to pay' },
      { amountCents: 5000 },
      { lineItems: [line], amountCents: 1000, description: 'x' },
      { amountCents: 999, description: 'x' },
      { amountCents: 100_000_001, description: 'x' },
      { ...simple, customer: { name: 'Sita', email: 's@example.com', phone: '011-234 5678' } },
      { ...simple, customer: { name: 'Sita', email: 's@example.com', phone: '+1 415 555 0100' } },
      { ...simple, customer: { name: 'Sita', email: 's@example.com', phone: '' } },
      { ...simple, successUrl: 'myapp://paid' },
      { ...simple, successUrl: 'not a url' },
    ];
    for (const body of bodies) {
      const res = await create(body);
      assert.equal(fits(body), res.status === 201, `${JSON.stringify(body)}: ${res.text}`);
    }
  });

  it('refuses U+0000 in any string of the body with 400, never a server error', async () => {
    const res = await create({ ...simple, description: 'Tea\u0000for two', customer: { name: 'Sita', email: 's@example.com' }, reference: 'a\u0000' });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(paths(res), ['description', 'reference']);
  });

  it('saveCard: a live checkout is refused while saved cards are off (409 saved_cards_off); test mode may ask', async () => {
    assert.equal((await create({ ...simple, saveCard: true }, keys.sk_live)).body.reason, 'saved_cards_off');
    const test = await create({ ...simple, saveCard: true });
    assert.equal(test.body.saveCard, true);
    const { keys: on } = await api.merchant({ activate: true, changes: { savedCards: true } });
    assert.equal((await create({ ...simple, saveCard: true }, on.sk_live)).status, 201);
    assert.equal((await create(simple, keys.sk_live)).body.mode, 'live');
  });

  it('409 merchant_not_live before live activation and merchant_unavailable when suspended', async () => {
    const { keys: pending } = await api.merchant();
    assert.equal((await create(simple, pending.sk_live)).body.reason, 'merchant_not_live');
    assert.equal((await create(simple, pending.pk_test)).status, 201, 'test checkouts before activation');
    const { keys: suspended } = await api.merchant({ changes: { status: 'suspended' } });
    assert.equal((await create(simple, suspended.pk_test)).body.reason, 'merchant_unavailable');
  });

  it('GET: secret key only, 404 unknown, mode_mismatch for the other mode', async () => {
    const c = (await create(simple)).body;
    assert.equal((await api.request(`/v1/checkouts/${c.id}`, { key: keys.pk_test })).body.reason, 'key_not_permitted');
    assert.equal((await api.request(`/v1/checkouts/${c.id}`, { key: keys.sk_live })).body.reason, 'mode_mismatch');
    assert.equal((await api.request(`/v1/payments/${c.payment.id}`, { key: keys.sk_live })).body.reason, 'mode_mismatch');
    assert.equal((await api.request('/v1/checkouts/chk_000000000000000000000000', { key: keys.sk_test })).status, 404);
    const { keys: other } = await api.merchant();
    assert.equal((await api.request(`/v1/checkouts/${c.id}`, { key: other.sk_test })).body.code, 'NOT_FOUND');
  });

  it('lists payments newest first with a status filter and pagination', async () => {
    const { keys: k } = await api.merchant({ activate: true });
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await create({ amountCents: 1000 + i, description: `p${i}` }, k.sk_test)).body);
    await get(made[0].url);
    const paid = await payAtProcessor(api, made[0].url, { number: '4111111111111111', expiry: '01/39', cvv: '100' }, { name: 'Kamal', email: 'k@example.com' });
    await get(paid);
    const page1 = await api.request('/v1/payments?limit=2', { key: k.sk_test });
    assert.deepEqual(page1.body.data.map((p: any) => p.id), [made[2].payment.id, made[1].payment.id]);
    assert.equal(page1.body.hasMore, true);
    const page2 = await api.request(`/v1/payments?limit=2&cursor=${page1.body.nextCursor}`, { key: k.sk_test });
    assert.deepEqual(page2.body.data.map((p: any) => p.id), [made[0].payment.id]);
    assert.equal(page2.body.hasMore, false);
    const succeeded = await api.request('/v1/payments?status=succeeded', { key: k.sk_test });
    assert.deepEqual(succeeded.body.data.map((p: any) => p.status), ['succeeded']);
    assert.deepEqual(paths(await api.request('/v1/payments?status=paid', { key: k.sk_test })), ['status']);
    assert.equal((await api.request('/v1/payments', { key: k.sk_live })).body.data.length, 0, 'live sees only live');
    assert.equal((await api.request('/v1/payments', { key: k.pk_test })).body.reason, 'key_not_permitted');
  });

  it('monthly limit: succeeded this month plus processing count, per mode, refused whole, reset on the 1st in Sri Lanka', async () => {
    const { keys: k } = await api.merchant({ activate: true });
    // starter: 100000000 cents a month.
    const big = (await create({ amountCents: 60_000_000, description: 'big' }, k.sk_test)).body;
    const paid = await payAtProcessor(api, big.url, { number: '4111111111111111', expiry: '01/39', cvv: '100' }, { name: 'Kamal', email: 'k@example.com' });
    await get(paid);
    const over = await create({ amountCents: 40_000_001, description: 'over' }, k.sk_test);
    assert.equal(over.body.reason, 'monthly_limit_reached');
    const fits = (await create({ amountCents: 30_000_000, description: 'fits' }, k.sk_test)).body;
    // Handed to the processor (processing): it counts now.
    const pay = await postPay(fits.url, { name: 'Kamal', email: 'k@example.com' });
    assert.equal(pay.status, 303);
    assert.equal((await create({ amountCents: 10_000_001, description: 'over' }, k.sk_test)).body.reason, 'monthly_limit_reached');
    assert.equal((await create({ amountCents: 10_000_000, description: 'exactly to the limit' }, k.sk_test)).status, 201);
    assert.equal((await create({ amountCents: 60_000_000, description: 'live has its own count' }, k.sk_live)).status, 201);
    // A second checkout that fitted when made is refused when its turn to pay would pass the limit.
    const { keys: k2 } = await api.merchant({ activate: true });
    const a = (await create({ amountCents: 60_000_000, description: 'a' }, k2.sk_test)).body;
    const b = (await create({ amountCents: 60_000_000, description: 'b' }, k2.sk_test)).body;
    await get(await payAtProcessor(api, a.url, { number: '4111111111111111', expiry: '01/39', cvv: '100' }, { name: 'Kamal', email: 'k@example.com' }));
    const refused = await postPay(b.url, { name: 'Kamal', email: 'k@example.com' });
    assert.equal(refused.status, 409);
    assert.match(refused.text, /data-reason="monthly_limit_reached"/, 'refused with the limit reason');
    // Midnight on the 1st, Sri Lankan time (UTC+05:30).
    const target = colomboMonth(api.clock.now()).end;
    assert.equal(new Date(target.getTime() + 330 * MINUTE).toISOString().slice(8), '01T00:00:00.000Z');
    await api.clock.set(new Date(target.getTime() - 1));
    assert.equal((await create({ amountCents: 50_000_000, description: 'still this month' }, k.sk_test)).body.reason, 'monthly_limit_reached');
    await api.clock.advance(1);
    assert.equal((await create({ amountCents: 50_000_000, description: 'new month' }, k.sk_test)).status, 201);
  });
});
