// POST /v1/refunds, GET /v1/refunds and GET /v1/refunds/{id} over HTTP: every rule and error of
// the spec, on payments paid on the hosted pages.
import assert from 'node:assert/strict';
import { createApiKey } from '../../db/api-keys';
import type { MerchantKeys } from '../../db/merchants';
import { startApiWithMerchant, ik, type TestApi } from '../support/api';
import { get, payAtProcessor, postPay } from '../checkouts/hosted-flow';
import { CUSTOMER, paidPayment, refund } from './refund-flow';

const paths = (res: { body: { fields?: { path: string }[] } }) => (res.body.fields ?? []).map((f) => f.path).sort();

describe('refunds API', () => {
  let api: TestApi;
  let keys: MerchantKeys;
  let accountId: string;

  before(async () => ({ api, keys, accountId } = await startApiWithMerchant()));
  after(() => api?.close());

  const getPayment = async (id: string) => (await api.request(`/v1/payments/${id}`, { key: keys.sk_test })).body;
  const expectError = async (pending: ReturnType<typeof refund>, status: number, code: string, reason?: string) => {
    const res = await pending;
    assert.equal(res.status, status, res.text);
    assert.equal(res.body.code, code, res.text);
    assert.equal(res.body.reason, reason, res.text);
    return res;
  };

  it('refunds part of a succeeded payment: a pending Refund, every field, and the payment partially_refunded in the same write', async () => {
    const payment = await paidPayment(api, keys, 350000);
    const res = await refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 120000, reason: 'One pot returned' });
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.id, /^re_[0-9a-z]{24}$/);
    assert.deepEqual(res.body, {
      object: 'refund',
      id: res.body.id,
      mode: 'test',
      paymentId: payment.id,
      status: 'pending',
      amountCents: 120000,
      currency: 'LKR',
      reason: 'One pot returned',
      failureMessage: null,
      createdAt: api.clock.now().toISOString(),
      succeededAt: null,
    });
    assert.deepEqual((await api.request(`/v1/refunds/${res.body.id}`, { key: keys.sk_test })).body, res.body);
    const after = await getPayment(payment.id);
    assert.equal(after.status, 'partially_refunded');
    assert.equal(after.refundedCents, 120000);
    // Nothing else of the payment changes.
    assert.deepEqual({ ...after, status: payment.status, refundedCents: 0 }, payment);
    assert.equal(api.engine.describe(`refund/${res.body.id}`)?.workflowType, 'paymentRefund', 'the refund\'s workflow started');
  });

  it('an omitted amount refunds everything left: the payment becomes refunded, and nothing is refundable after', async () => {
    const payment = await paidPayment(api, keys, 350000);
    assert.equal((await refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 50000 })).status, 201);
    const rest = await refund(api, keys.sk_test, { paymentId: payment.id });
    assert.equal(rest.status, 201, rest.text);
    assert.equal(rest.body.amountCents, 300000);
    assert.equal(rest.body.reason, null);
    const after = await getPayment(payment.id);
    assert.deepEqual([after.status, after.refundedCents], ['refunded', 350000]);
    const again = await expectError(refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 100 }), 409, 'CONFLICT', 'not_refundable');
    assert.match(again.body.message, /refunded/);
    await expectError(refund(api, keys.sk_test, { paymentId: payment.id }), 409, 'CONFLICT', 'not_refundable');
  });

  it('a refund of exactly what is left, in one go, refunds the payment', async () => {
    const payment = await paidPayment(api, keys, 1000);
    const res = await refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 1000 });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual([(await getPayment(payment.id)).status, (await getPayment(payment.id)).refundedCents], ['refunded', 1000]);
  });

  it('400 amount: under 100 cents, over what is left, or nothing left worth refunding; the payment is left as it was', async () => {
    const payment = await paidPayment(api, keys, 1000);
    for (const amountCents of [99, 0, -100]) {
      const res = await expectError(refund(api, keys.sk_test, { paymentId: payment.id, amountCents }), 400, 'VALIDATION_FAILED', 'amount');
      assert.deepEqual(paths(res), ['amountCents']);
    }
    const over = await expectError(refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 1001 }), 400, 'VALIDATION_FAILED', 'amount');
    assert.deepEqual(paths(over), ['amountCents']);
    assert.match(over.body.message, /1000 cents of the payment are left/);
    assert.equal((await refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 950 })).status, 201);
    await expectError(refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 51 }), 400, 'VALIDATION_FAILED', 'amount');
    // 50 cents are left: less than the smallest refund, so "everything left" cannot be refunded.
    const rest = await expectError(refund(api, keys.sk_test, { paymentId: payment.id }), 400, 'VALIDATION_FAILED', 'amount');
    assert.match(rest.body.message, /50 cents of the payment are left/);
    await expectError(refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 100 }), 400, 'VALIDATION_FAILED', 'amount');
    const after = await getPayment(payment.id);
    assert.deepEqual([after.status, after.refundedCents], ['partially_refunded', 950]);
    assert.equal((await api.knex('refunds').where({ payment_id: payment.id })).length, 1);
  });

  it('400 for a body out of shape: a fraction or a string amount, a reason over 200 characters, a bad or missing paymentId, unknown fields', async () => {
    const payment = await paidPayment(api, keys, 5000);
    assert.deepEqual(paths(await expectError(refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 100.5 }), 400, 'VALIDATION_FAILED', 'amount')), ['amountCents']);
    assert.deepEqual(paths(await expectError(refund(api, keys.sk_test, { paymentId: payment.id, amountCents: '1000' }), 400, 'VALIDATION_FAILED', 'amount')), ['amountCents']);
    assert.deepEqual(paths(await expectError(refund(api, keys.sk_test, { paymentId: payment.id, reason: 'x'.repeat(201) }), 400, 'VALIDATION_FAILED')), ['reason']);
    assert.deepEqual(paths(await expectError(refund(api, keys.sk_test, { paymentId: 'chk_0mwtsu24b7wywk2scds1b5zp' }), 400, 'VALIDATION_FAILED')), ['paymentId']);
    assert.deepEqual(paths(await expectError(refund(api, keys.sk_test, { amountCents: 1000 }), 400, 'VALIDATION_FAILED')), ['paymentId']);
    assert.deepEqual(paths(await expectError(refund(api, keys.sk_test, { paymentId: payment.id, currency: 'LKR' }), 400, 'VALIDATION_FAILED')), ['']);
    const longest = await refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 100, reason: 'x'.repeat(200) });
    assert.equal(longest.status, 201, longest.text);
    assert.equal(longest.body.reason, 'x'.repeat(200));
    assert.equal((await api.knex('refunds').where({ payment_id: payment.id })).length, 1);
  });

  it('409 not_refundable unless succeeded or partially_refunded: unpaid, processing, failed', async () => {
    const open = (await api.request('/v1/checkouts', { key: keys.sk_test, idempotencyKey: ik(), body: { amountCents: 5000, description: 'Tea', customer: CUSTOMER } })).body;
    await expectError(refund(api, keys.sk_test, { paymentId: open.payment.id, amountCents: 1000 }), 409, 'CONFLICT', 'not_refundable');
    // Handed to the processor, the card not yet entered.
    assert.equal((await postPay(open.url, {})).status, 303);
    assert.equal((await getPayment(open.payment.id)).status, 'processing');
    await expectError(refund(api, keys.sk_test, { paymentId: open.payment.id }), 409, 'CONFLICT', 'not_refundable');
    const declined = (await api.request('/v1/checkouts', { key: keys.sk_test, idempotencyKey: ik(), body: { amountCents: 5000, description: 'Tea', customer: CUSTOMER } })).body;
    await get(await payAtProcessor(api, declined.url, { number: '4111111111111111', expiry: '05/39', cvv: '100' }));
    assert.equal((await getPayment(declined.payment.id)).status, 'failed');
    const res = await expectError(refund(api, keys.sk_test, { paymentId: declined.payment.id, amountCents: 1000 }), 409, 'CONFLICT', 'not_refundable');
    assert.match(res.body.message, /The payment is failed/);
    assert.equal((await api.knex('refunds').whereIn('payment_id', [open.payment.id, declined.payment.id])).length, 0);
  });

  it('404 for a payment the key cannot see: none with that id, another merchant\'s; mode_mismatch for the other mode\'s', async () => {
    const payment = await paidPayment(api, keys, 5000);
    await expectError(refund(api, keys.sk_test, { paymentId: 'pay_0mwtsu24b7wywkpao1or4jxi' }), 404, 'NOT_FOUND');
    const other = await api.merchant({ activate: true });
    await expectError(refund(api, other.keys.sk_test, { paymentId: payment.id }), 404, 'NOT_FOUND');
    const res = await expectError(refund(api, keys.sk_live, { paymentId: payment.id }), 404, 'NOT_FOUND', 'mode_mismatch');
    assert.match(res.body.message, /test object/);
    assert.equal((await api.request(`/v1/refunds?paymentId=${payment.id}`, { key: other.keys.sk_test })).body.data.length, 0);
    // A live checkout's payment (live payments cannot be paid yet: requires_payment_method).
    const live = (await api.request('/v1/checkouts', { key: keys.sk_live, idempotencyKey: ik(), body: { amountCents: 5000, description: 'Tea' } })).body;
    await expectError(refund(api, keys.sk_test, { paymentId: live.payment.id }), 404, 'NOT_FOUND', 'mode_mismatch');
    await expectError(refund(api, keys.sk_live, { paymentId: live.payment.id }), 409, 'CONFLICT', 'not_refundable');
    assert.deepEqual([(await getPayment(payment.id)).refundedCents], [0]);
  });

  it('secret keys with refunds:write only; reads with payments:read', async () => {
    const payment = await paidPayment(api, keys, 5000);
    await expectError(refund(api, keys.pk_test, { paymentId: payment.id }), 403, 'FORBIDDEN', 'key_not_permitted');
    await expectError(refund(api, keys.ak_test, { paymentId: payment.id }), 403, 'FORBIDDEN', 'key_not_permitted');
    const { key: reader } = await createApiKey(api.knex, { accountId, kind: 'secret', mode: 'test', permissions: ['payments:read'], now: api.clock.now() });
    await expectError(refund(api, reader, { paymentId: payment.id }), 403, 'FORBIDDEN', 'key_not_permitted');
    const { key: writer } = await createApiKey(api.knex, { accountId, kind: 'secret', mode: 'test', permissions: ['refunds:write'], now: api.clock.now() });
    const made = await refund(api, writer, { paymentId: payment.id, amountCents: 1000 });
    assert.equal(made.status, 201, made.text);
    assert.equal((await api.request(`/v1/refunds/${made.body.id}`, { key: writer })).status, 403);
    assert.equal((await api.request(`/v1/refunds/${made.body.id}`, { key: reader })).status, 200);
    assert.equal((await api.request('/v1/refunds', { key: reader })).status, 200);
    assert.equal((await api.request('/v1/refunds', { key: keys.pk_test })).status, 403);
  });

  it('Idempotency-Key: required; the same key replays the refund without a second one; a refused request does not use its key up', async () => {
    const payment = await paidPayment(api, keys, 5000);
    await expectError(api.request('/v1/refunds', { key: keys.sk_test, body: { paymentId: payment.id } }), 400, 'VALIDATION_FAILED', 'idempotency_key_missing');
    const key = ik();
    const first = await refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 1000 }, key);
    const again = await refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 1000 }, key);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    await expectError(refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 2000 }, key), 409, 'CONFLICT', 'idempotency_key_reused');
    assert.equal((await getPayment(payment.id)).refundedCents, 1000);
    const refused = ik();
    await expectError(refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 4001 }, refused), 400, 'VALIDATION_FAILED', 'amount');
    assert.equal((await refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 4000 }, refused)).status, 201);
    assert.deepEqual([(await getPayment(payment.id)).status, (await getPayment(payment.id)).refundedCents], ['refunded', 5000]);
  });

  it('GET /v1/refunds: newest first, keyset pages, one payment\'s with paymentId, only the key\'s mode', async () => {
    const merchant = await api.merchant({ activate: true });
    const [a, b] = [await paidPayment(api, merchant.keys, 10000), await paidPayment(api, merchant.keys, 10000)];
    const made: string[] = [];
    for (const [payment, amountCents] of [[a, 1000], [b, 2000], [a, 3000], [b, 4000], [a, 5000]] as const) {
      made.push((await refund(api, merchant.keys.sk_test, { paymentId: payment.id, amountCents })).body.id);
    }
    const list = (query: string, key = merchant.keys.sk_test) => api.request(`/v1/refunds${query}`, { key });
    const all = (await list('')).body;
    assert.deepEqual(all.data.map((r: { id: string }) => r.id), [...made].reverse());
    assert.deepEqual([all.object, all.hasMore, all.nextCursor], ['list', false, null]);
    assert.deepEqual(all.data[0], (await api.request(`/v1/refunds/${made[4]}`, { key: merchant.keys.sk_test })).body);
    const first = (await list('?limit=2')).body;
    assert.deepEqual([first.data.map((r: { id: string }) => r.id), first.hasMore, first.nextCursor], [[made[4], made[3]], true, made[3]]);
    const second = (await list(`?limit=2&cursor=${first.nextCursor}`)).body;
    assert.deepEqual(second.data.map((r: { id: string }) => r.id), [made[2], made[1]]);
    const last = (await list(`?limit=2&cursor=${second.nextCursor}`)).body;
    assert.deepEqual([last.data.map((r: { id: string }) => r.id), last.hasMore, last.nextCursor], [[made[0]], false, null]);
    const ofA = (await list(`?paymentId=${a.id}`)).body;
    assert.deepEqual(ofA.data.map((r: { amountCents: number }) => r.amountCents), [5000, 3000, 1000]);
    const ofAPaged = (await list(`?paymentId=${a.id}&limit=1&cursor=${made[4]}`)).body;
    assert.deepEqual([ofAPaged.data.map((r: { id: string }) => r.id), ofAPaged.nextCursor], [[made[2]], made[2]]);
    assert.equal((await list('', merchant.keys.sk_live)).body.data.length, 0);
    for (const bad of ['?paymentId=pay_short', '?paymentId=re_0mwtsu24b7wywlfcctmq4ty5', `?cursor=${a.id}`, '?limit=101', '?status=pending']) {
      const res = await list(bad);
      assert.equal(res.status, 400, bad);
      assert.equal(res.body.code, 'VALIDATION_FAILED', bad);
    }
  });

  it('GET /v1/refunds/{id}: 404 for an unknown id or another merchant\'s, mode_mismatch for the other mode', async () => {
    const payment = await paidPayment(api, keys, 5000);
    const made = (await refund(api, keys.sk_test, { paymentId: payment.id })).body;
    assert.equal((await api.request('/v1/refunds/re_0mwtsu24b7wywlfcctmq4ty5', { key: keys.sk_test })).status, 404);
    assert.equal((await api.request('/v1/refunds/re_short', { key: keys.sk_test })).status, 404);
    const other = await api.merchant({ activate: true });
    assert.equal((await api.request(`/v1/refunds/${made.id}`, { key: other.keys.sk_test })).body.code, 'NOT_FOUND');
    assert.equal((await api.request(`/v1/refunds/${made.id}`, { key: keys.sk_live })).body.reason, 'mode_mismatch');
  });
});
