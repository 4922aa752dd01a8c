// Creating subscriptions over HTTP: the customer (by id, or found or made from details), the items
// and their rules, the first period and invoice, the event; list and get.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { archivePrice } from '../../services/prices/archive';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';

describe('subscriptions API', () => {
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-31T04:30:00.000Z') })));
  after(() => api.close());

  const post = (path: string, body: unknown, key = keys.sk_test) => api.request(path, { key, body, idempotencyKey: ik() });
  const price = async (body: Record<string, unknown> = {}, key = keys.sk_test) =>
    (await post('/v1/prices', { product: { name: 'Pro plan' }, unitAmountCents: 150000, interval: 'month', ...body }, key)).body;
  const subscribe = (body: Record<string, unknown>, key = keys.sk_test) => post('/v1/subscriptions', { collectionMethod: 'send_invoice', ...body }, key);

  it('a send_invoice subscription: active, its first period and invoice (finalised, due daysUntilDue on), every field, customer.subscription.created', async () => {
    const customer = (await post('/v1/customers', { email: 'nimal@example.com' })).body;
    const pro = await price();
    const res = await subscribe({ customerId: customer.id, priceId: pro.id, quantity: 2, reference: 'order-7' });
    assert.equal(res.status, 201, res.text);
    const sub = res.body;
    assert.match(sub.id, /^sub_[0-9a-z]{24}$/);
    const summary = { id: pro.id, productName: 'Pro plan', unitAmountCents: 150000, interval: 'month', intervalCount: 1 };
    assert.deepEqual(sub, {
      object: 'subscription', id: sub.id, mode: 'test', status: 'active', customerId: customer.id, price: summary, quantity: 2,
      items: [{ id: sub.items[0].id, price: summary, quantity: 2 }],
      currentPeriodStart: '2027-01-31T04:30:00.000Z', currentPeriodEnd: '2027-02-28T04:30:00.000Z', billingCycleAnchor: '2027-01-31T04:30:00.000Z',
      cancelAtPeriodEnd: false, cancelAt: null, canceledAt: null, endedAt: null, cancelReason: null, cancellationDetails: { reason: null, feedback: null, comment: null },
      trialStart: null, trialEnd: null, trialEndBehavior: 'create_invoice', pauseCollection: null, discount: null, taxRateIds: [], subscriptionLinkId: null,
      collectionMethod: 'send_invoice', daysUntilDue: 30, pendingUpdate: null, cardId: null, cardMissingSince: null, latestInvoiceId: sub.latestInvoiceId,
      checkoutUrl: null, reference: 'order-7', createdAt: '2027-01-31T04:30:00.000Z',
    });
    assert.match(sub.items[0]!.id, /^si_[0-9a-z]{24}$/);
    const invoice = (await api.request(`/v1/invoices/${sub.latestInvoiceId}`, { key: keys.sk_test })).body;
    assert.deepEqual([invoice.status, invoice.billingReason, invoice.subscriptionId, invoice.totalCents, invoice.dueDate], ['open', 'subscription_create', sub.id, 300000, '2027-03-02T04:30:00.000Z']);
    assert.deepEqual((await api.request(`/v1/subscriptions/${sub.id}`, { key: keys.sk_test })).body, sub);
    const [event] = await api.knex('events').where({ type: 'customer.subscription.created' }).whereRaw("data->>'id' = ?", [sub.id]);
    assert.deepEqual(event.data, sub);
  });

  it('a customer from details (found by email, or made), and several items on one interval', async () => {
    const basic = await price({ product: { name: 'Basic' }, unitAmountCents: 50000 });
    const seats = await price({ product: { name: 'Seats' }, unitAmountCents: 1000 });
    const sub = (await subscribe({ customer: { email: 'new@example.com', name: 'New One' }, items: [{ priceId: basic.id }, { priceId: seats.id, quantity: 5 }] })).body;
    assert.deepEqual(sub.items.map((i: { price: { id: string }; quantity: number }) => [i.price.id, i.quantity]), [[basic.id, 1], [seats.id, 5]]);
    const customer = (await api.request(`/v1/customers/${sub.customerId}`, { key: keys.sk_test })).body;
    assert.deepEqual([customer.email, customer.name], ['new@example.com', 'New One']);
    const invoice = (await api.request(`/v1/invoices/${sub.latestInvoiceId}`, { key: keys.sk_test })).body;
    assert.equal(invoice.totalCents, 55000);
  });

  it('refuses: a card that is not the customer\'s or unknown, items twice or on two intervals, archived, other-mode, unknown or another account\'s prices, unknown customers, both or neither of customer and customerId', async () => {
    const customer = (await post('/v1/customers', { email: 'rules@example.com' })).body;
    const pro = await price();
    const yearly = await price({ interval: 'year' });
    const reason = async (body: Record<string, unknown>) => {
      const res = await subscribe(body);
      return [res.status, res.body.reason ?? res.body.code];
    };
    assert.deepEqual(await reason({ customerId: customer.id, priceId: pro.id, cardId: 'card_000000000000000000000000' }), [404, 'NOT_FOUND']);
    assert.deepEqual(await reason({ customerId: customer.id, items: [{ priceId: pro.id }, { priceId: pro.id }] }), [400, 'items_invalid']);
    assert.deepEqual(await reason({ customerId: customer.id, items: [{ priceId: pro.id }, { priceId: yearly.id }] }), [400, 'items_invalid']);
    assert.deepEqual(await reason({ customerId: customer.id, items: [] }), [400, 'items_invalid']);
    // The spec: items_invalid for prices that are not active prices of yours, 409 price_unavailable for archived or other-mode ones.
    const fields = async (body: Record<string, unknown>) => {
      const res = await subscribe(body);
      return [res.status, res.body.reason, res.body.fields?.map((f: { path: string }) => f.path)];
    };
    assert.deepEqual(await fields({ customerId: customer.id, priceId: 'price_000000000000000000000000' }), [400, 'items_invalid', ['priceId']]);
    const other = await api.merchant({ name: 'Other Merchant' });
    const theirs = await price({}, other.keys.sk_test);
    assert.deepEqual(await fields({ customerId: customer.id, priceId: theirs.id }), [400, 'items_invalid', ['priceId']]);
    assert.deepEqual(await fields({ customerId: customer.id, items: [{ priceId: pro.id }, { priceId: theirs.id }] }), [400, 'items_invalid', ['items[1].priceId']]);
    const archived = await price();
    await archivePrice({ db: api.knex, clock: api.clock }, archived.id);
    assert.deepEqual(await reason({ customerId: customer.id, priceId: archived.id }), [409, 'price_unavailable']);
    const live = await price({}, keys.sk_live);
    assert.deepEqual(await reason({ customerId: customer.id, priceId: live.id }), [409, 'price_unavailable']);
    assert.deepEqual(await reason({ customerId: 'cus_000000000000000000000000', priceId: pro.id }), [404, 'NOT_FOUND']);
    assert.deepEqual(await reason({ customerId: customer.id, customer: { email: 'x@example.com' }, priceId: pro.id }), [400, 'VALIDATION_FAILED']);
    assert.deepEqual(await reason({ priceId: pro.id }), [400, 'VALIDATION_FAILED']);
    assert.deepEqual(await reason({ customerId: customer.id, priceId: pro.id, quantity: 10001 }), [400, 'VALIDATION_FAILED']);
  });

  it('lists newest first, by customer and status', async () => {
    const { keys: own } = await api.merchant();
    const pro = await price({}, own.sk_test);
    const a = (await post('/v1/customers', { email: 'a@example.com' }, own.sk_test)).body;
    const first = (await subscribe({ customerId: a.id, priceId: pro.id }, own.sk_test)).body;
    const second = (await subscribe({ customer: { email: 'b@example.com' }, priceId: pro.id }, own.sk_test)).body;
    const list = async (query: string) => (await api.request(`/v1/subscriptions${query}`, { key: own.sk_test })).body.data.map((s: { id: string }) => s.id);
    assert.deepEqual(await list(''), [second.id, first.id]);
    assert.deepEqual(await list(`?customerId=${a.id}`), [first.id]);
    assert.deepEqual(await list('?status=active'), [second.id, first.id]);
    assert.deepEqual(await list('?status=canceled'), []);
  });
});
