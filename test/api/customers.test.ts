import assert from 'node:assert/strict';
import { startApiWithMerchant, ik, type TestApi } from '../support/api';
import type { MerchantKeys } from '../../db/merchants';

describe('customers', () => {
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant()));
  after(() => api.close());

  const create = (body: unknown, key = keys.sk_test) => api.request('/v1/customers', { key, body, idempotencyKey: ik() });

  it('creates a customer (201) with the phone in international form', async () => {
    const res = await create({ email: 'nimal@example.com', name: 'Nimal Perera', phone: '077-123 4567', locale: 'si' });
    assert.equal(res.status, 201);
    assert.match(res.body.id, /^cus_[0-9a-z]{24}$/);
    assert.deepEqual({ ...res.body, id: undefined, createdAt: undefined }, {
      object: 'customer',
      id: undefined,
      mode: 'test',
      email: 'nimal@example.com',
      name: 'Nimal Perera',
      phone: '+94771234567',
      locale: 'si',
      defaultCardId: null,
      creditBalanceCents: 0,
      testClockId: null,
      createdAt: undefined,
    });
    const got = await api.request(`/v1/customers/${res.body.id}`, { key: keys.sk_test });
    assert.deepEqual(got.body, res.body);
  });

  it('answers an existing email (any letter case) with that customer, new details filled in (200)', async () => {
    const first = await create({ email: 'sita@example.com', name: 'Sita' });
    const again = await create({ email: 'SITA@example.com', phone: '+94 71 555 0000' });
    assert.equal(again.status, 200);
    assert.equal(again.body.id, first.body.id);
    assert.equal(again.body.name, 'Sita', 'details not sent stay');
    assert.equal(again.body.phone, '+94715550000');
    assert.equal(again.body.email, 'sita@example.com');
    const live = await create({ email: 'sita@example.com' }, keys.sk_live);
    assert.equal(live.status, 201, 'one customer per email per mode');
  });

  // What a mailer would read as another address than the one shown (or as several), and what is
  // no address at all: each is 400 VALIDATION_FAILED naming the email, wherever an email comes in.
  const NOT_ONE_BARE_ADDRESS = [
    'x<evil@evil.example>', 'Nimal <nimal@example.com>', '"Nimal" <nimal@example.com>', 'nimal@example.com, evil@evil.example',
    'nimal@example.com;evil@evil.example', 'nimal@example.com (Nimal)', '(Nimal)nimal@example.com', ' nimal@example.com',
    'nimal@example.com ', 'nimal @example.com', 'nimal@example.com\n', 'nimal@exam\u2028ple.com', '"evil@evil.example, x"@example.com',
    'evil@evil.example>', 'a@b@example.com', 'nimal@', '@example.com', 'nimal@localhost', 'no-at-sign',
  ];

  it('takes an email only as one bare address: display names, lists, comments, whitespace are refused', async () => {
    const refused = async (path: string, body: unknown, field: string) => {
      const res = await api.request(path, { key: keys.sk_test, body, idempotencyKey: ik() });
      assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      assert.ok(res.body.fields.some((f: { path: string; message: string }) => f.path === field && /one email address alone/.test(f.message)), res.text);
    };
    for (const email of NOT_ONE_BARE_ADDRESS) {
      await refused('/v1/customers', { email }, 'email');
      await refused('/v1/checkouts', { amountCents: 350000, description: 'Tea', customer: { name: 'Nimal', email } }, 'customer.email');
      await refused('/v1/subscriptions', { customer: { email }, priceId: 'price_0mw8a3k2x9q1c7v5b4n6m2z8' }, 'customer.email');
    }
    assert.equal(Number((await api.knex('customers').where('email', 'like', '%evil%').count('* as n').first())!.n), 0);
    assert.equal(Number((await api.knex('payments').where('customer_email', 'like', '%evil%').count('* as n').first())!.n), 0);
    for (const email of ['nimal.perera+tea@example.com', "o'brien@mail.example.lk", 'KAMAL@EXAMPLE.COM', 'x@xn--fsqu00a.example']) {
      const res = await create({ email });
      assert.equal(res.status, 201, `${email}: ${res.text}`);
      assert.equal(res.body.email, email);
    }
  });

  it('refuses a phone that is not a Sri Lankan mobile number', async () => {
    for (const phone of ['12345', '011 234 5678', '+1 415 555 0100', '077123456']) {
      const res = await create({ email: 'p@example.com', phone });
      assert.equal(res.status, 400, phone);
      assert.deepEqual(res.body.fields, [{ path: 'phone', message: 'Must be a Sri Lankan mobile number, such as 077 123 4567 or +94 77 123 4567.' }]);
    }
  });

  it('documents the phone rule exactly: a number fits the document\'s pattern if and only if it is taken', async () => {
    const doc = (await api.request('/v1/openapi.json')).body;
    const pattern = new RegExp(doc.paths['/v1/customers'].post.requestBody.content['application/json'].schema.properties.phone.pattern, 'u');
    const phones = ['077-123 4567', '+94 71 555 0000', '0094771234567', '94771234567', ' 0 7 7 1 2 3 4 5 6 7 ', '', '12345', '011 234 5678', '+1 415 555 0100', '077123456', '0771234567x', '077\t1234567'];
    for (const phone of phones) {
      const res = await create({ email: 'pattern@example.com', phone });
      assert.equal(pattern.test(phone), res.status < 300, `${JSON.stringify(phone)}: ${res.text}`);
    }
  });

  it('refuses U+0000 in a query string with 400, never a server error', async () => {
    const res = await api.request('/v1/customers?email=a%00b@example.com', { key: keys.sk_test });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body.fields.map((f: { path: string }) => f.path), ['email']);
  });

  it('refuses bad emails, names and locales', async () => {
    const res = await create({ email: 'no-at-sign', name: '', locale: 'EN' });
    assert.deepEqual(res.body.fields.map((f: { path: string }) => f.path).sort(), ['email', 'locale', 'name']);
  });

  it('answers 404 for an unknown customer', async () => {
    const res = await api.request('/v1/customers/cus_000000000000000000000000', { key: keys.sk_test });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'NOT_FOUND');
  });
});
