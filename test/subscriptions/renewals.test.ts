// A send_invoice subscription on a test clock, renewed month by month across month ends: each
// period's invoice numbered, its lines and cents written out, the periods counted from the anchor.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';

describe('subscriptions: renewals on a test clock', function () {
  this.timeout(60_000);
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());

  const post = async (path: string, body: unknown) => {
    const res = await api.request(path, { key: keys.sk_test, body, idempotencyKey: ik() });
    assert.ok(res.status < 300, `${path}: ${res.text}`);
    return res.body;
  };

  it('monthly from 31 January: renewed on 28 February and 31 March, an invoice each, in order', async () => {
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: '2027-01-31T04:30:00.000Z' });
    const customer = await post('/v1/customers', { email: 'nimal@example.com', testClockId: clock.id });
    const price = await post('/v1/prices', { product: { name: 'Pro plan' }, unitAmountCents: 150000, interval: 'month' });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, quantity: 2, collectionMethod: 'send_invoice', daysUntilDue: 7 });
    assert.deepEqual([subscription.status, subscription.currentPeriodStart, subscription.currentPeriodEnd, subscription.quantity], ['active', '2027-01-31T04:30:00.000Z', '2027-02-28T04:30:00.000Z', 2]);
    await api.workflows.settle();

    await post(`/v1/test_helpers/test_clocks/${clock.id}/advance`, { frozenTime: '2027-04-01T00:00:00.000Z' });
    for (let i = 0; (await api.request(`/v1/test_helpers/test_clocks/${clock.id}`, { key: keys.sk_test })).body.status !== 'ready'; i++) {
      assert.ok(i < 500, 'the clock becomes ready');
      await api.workflows.settle();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const invoices = (await api.request(`/v1/invoices?subscriptionId=${subscription.id}`, { key: keys.sk_test })).body.data.reverse();
    assert.deepEqual(
      invoices.map((i: any) => [i.number, i.billingReason, i.periodStart, i.periodEnd, i.totalCents, i.status, i.dueDate, i.createdAt]),
      [
        ['INV-000001', 'subscription_create', '2027-01-31T04:30:00.000Z', '2027-02-28T04:30:00.000Z', 300000, 'open', '2027-02-07T04:30:00.000Z', '2027-01-31T04:30:00.000Z'],
        ['INV-000002', 'subscription_cycle', '2027-02-28T04:30:00.000Z', '2027-03-31T04:30:00.000Z', 300000, 'open', '2027-03-07T04:30:00.000Z', '2027-02-28T04:30:00.000Z'],
        ['INV-000003', 'subscription_cycle', '2027-03-31T04:30:00.000Z', '2027-04-30T04:30:00.000Z', 300000, 'open', '2027-04-07T04:30:00.000Z', '2027-03-31T04:30:00.000Z'],
      ],
    );
    assert.deepEqual(invoices[1].lines, [{ description: '2 × Pro plan', quantity: 2, unitAmountCents: 150000, amountCents: 300000, periodStart: '2027-02-28T04:30:00.000Z', periodEnd: '2027-03-31T04:30:00.000Z', proration: false, priceId: price.id, discountable: true, taxable: true }]);
    const now = (await api.request(`/v1/subscriptions/${subscription.id}`, { key: keys.sk_test })).body;
    assert.deepEqual([now.currentPeriodStart, now.currentPeriodEnd, now.latestInvoiceId], ['2027-03-31T04:30:00.000Z', '2027-04-30T04:30:00.000Z', invoices[2].id]);
  });

  const advanceUntilReady = async (clockId: string, frozenTime: string) => {
    await post(`/v1/test_helpers/test_clocks/${clockId}/advance`, { frozenTime });
    for (let i = 0; (await api.request(`/v1/test_helpers/test_clocks/${clockId}`, { key: keys.sk_test })).body.status !== 'ready'; i++) {
      assert.ok(i < 500, 'the clock becomes ready');
      await api.workflows.settle();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  it('yearly from 29 February 2028 (a leap year): renewed on 28 February 2029', async () => {
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: '2028-02-29T04:30:00.000Z' });
    const customer = await post('/v1/customers', { email: 'leap@example.com', testClockId: clock.id });
    const price = await post('/v1/prices', { product: { name: 'Annual plan' }, unitAmountCents: 1200000, interval: 'year' });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, collectionMethod: 'send_invoice' });
    await api.workflows.settle();
    await advanceUntilReady(clock.id, '2029-03-01T00:00:00.000Z');
    const invoices = (await api.request(`/v1/invoices?subscriptionId=${subscription.id}`, { key: keys.sk_test })).body.data.reverse();
    assert.deepEqual(
      invoices.map((i: any) => [i.periodStart, i.periodEnd, i.totalCents]),
      [
        ['2028-02-29T04:30:00.000Z', '2029-02-28T04:30:00.000Z', 1200000],
        ['2029-02-28T04:30:00.000Z', '2030-02-28T04:30:00.000Z', 1200000],
      ],
    );
  });

  it('deleting the clock ends its customers\' subscriptions: canceled at the clock\'s time, customer.subscription.deleted, their workflows finished', async () => {
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: '2027-05-10T04:30:00.000Z' });
    const customer = await post('/v1/customers', { email: 'gone@example.com', testClockId: clock.id });
    const price = await post('/v1/prices', { product: { name: 'Pro plan' }, unitAmountCents: 150000, interval: 'month' });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, collectionMethod: 'send_invoice' });
    await api.workflows.settle();
    assert.equal(api.engine.describe(`subscription/${subscription.id}`)?.status, 'RUNNING');
    const deleted = await api.request(`/v1/test_helpers/test_clocks/${clock.id}`, { method: 'DELETE', key: keys.sk_test });
    assert.equal(deleted.body.deleted, true);
    await api.workflows.settle();
    const ended = (await api.request(`/v1/subscriptions/${subscription.id}`, { key: keys.sk_test })).body;
    assert.deepEqual([ended.status, ended.canceledAt, ended.endedAt], ['canceled', '2027-05-10T04:30:00.000Z', '2027-05-10T04:30:00.000Z']);
    const [event] = await api.knex('events').where({ type: 'customer.subscription.deleted' }).whereRaw("data->>'id' = ?", [subscription.id]);
    assert.deepEqual(event.data, ended);
    assert.equal(api.engine.describe(`subscription/${subscription.id}`)?.status, 'COMPLETED');
    assert.equal((await api.request(`/v1/invoices?subscriptionId=${subscription.id}`, { key: keys.sk_test })).body.data.length, 1, 'no renewal made on the way out');
    // Nothing new for a customer whose clock is gone: it would never move.
    for (const [path, body] of [['/v1/subscriptions', { customerId: customer.id, priceId: price.id }], ['/v1/invoices', { customerId: customer.id }]] as const) {
      const refused = await api.request(path, { key: keys.sk_test, body, idempotencyKey: ik() });
      assert.deepEqual([refused.status, refused.body.code], [404, 'NOT_FOUND'], path);
      assert.match(refused.body.message, /test clock .* was deleted/);
    }
  });

  const monthlyOnClock = async (email: string, frozenTime: string, body: Record<string, unknown> = {}) => {
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime });
    const customer = await post('/v1/customers', { email, testClockId: clock.id, locale: 'ta' });
    const price = await post('/v1/prices', { product: { name: 'Pro plan' }, unitAmountCents: 150000, interval: 'month' });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, collectionMethod: 'send_invoice', ...body });
    await api.workflows.settle();
    return { clock, subscription };
  };
  const invoicesOf = async (id: string) => (await api.request(`/v1/invoices?subscriptionId=${id}`, { key: keys.sk_test })).body.data.reverse();

  it('canceled at period end: runs to 28 February, then ends there with no new invoice, the customer emailed (in Tamil)', async () => {
    const { clock, subscription } = await monthlyOnClock('end@example.com', '2027-01-31T04:30:00.000Z');
    const pending = await post(`/v1/subscriptions/${subscription.id}/cancel`, { atPeriodEnd: true, feedback: 'too_expensive', comment: 'Later, perhaps' });
    assert.deepEqual([pending.status, pending.cancelAtPeriodEnd, pending.canceledAt, pending.cancellationDetails], ['active', true, '2027-01-31T04:30:00.000Z', { reason: 'cancellation_requested', feedback: 'too_expensive', comment: 'Later, perhaps' }]);
    await advanceUntilReady(clock.id, '2027-03-05T00:00:00.000Z');
    const ended = (await api.request(`/v1/subscriptions/${subscription.id}`, { key: keys.sk_test })).body;
    assert.deepEqual([ended.status, ended.endedAt, ended.cancelReason], ['canceled', '2027-02-28T04:30:00.000Z', 'requested_by_merchant']);
    assert.deepEqual((await invoicesOf(subscription.id)).map((i: any) => [i.billingReason, i.status]), [['subscription_create', 'void']]);
    const [email] = await api.knex('emails').where({ object_id: subscription.id, kind: 'subscription_canceled' });
    assert.deepEqual([email.locale, email.to, email.created_at.toISOString()], ['ta', 'end@example.com', '2027-02-28T04:30:00.000Z']);
    assert.equal(api.engine.describe(`subscription/${subscription.id}`)?.status, 'COMPLETED');
    const again = await api.request(`/v1/subscriptions/${subscription.id}/cancel`, { key: keys.sk_test, body: {}, idempotencyKey: ik() });
    assert.deepEqual([again.status, again.body.reason], [409, 'subscription_ended']);
    assert.equal((await api.request(`/v1/subscriptions/${subscription.id}/resume`, { key: keys.sk_test, method: 'POST', idempotencyKey: ik() })).body.reason, 'subscription_ended');
  });

  it('a pending cancellation withdrawn by resume: it renews as before', async () => {
    const { clock, subscription } = await monthlyOnClock('stay@example.com', '2027-01-31T04:30:00.000Z');
    await post(`/v1/subscriptions/${subscription.id}/cancel`, { atPeriodEnd: true });
    const resumed = (await api.request(`/v1/subscriptions/${subscription.id}/resume`, { key: keys.sk_test, method: 'POST', idempotencyKey: ik() })).body;
    assert.deepEqual([resumed.cancelAtPeriodEnd, resumed.canceledAt, resumed.cancellationDetails.reason], [false, null, null]);
    await advanceUntilReady(clock.id, '2027-03-05T00:00:00.000Z');
    assert.deepEqual((await invoicesOf(subscription.id)).map((i: any) => i.billingReason), ['subscription_create', 'subscription_cycle']);
  });

  it('a pending cancelAt withdrawn by resume: it renews past the old cancelAt, each period whole', async () => {
    const { clock, subscription } = await monthlyOnClock('cancel-at@example.com', '2027-01-31T04:30:00.000Z', { cancelAt: '2027-03-15T04:30:00.000Z' });
    assert.equal(subscription.cancellationDetails.reason, 'cancellation_requested');
    const res = await api.request(`/v1/subscriptions/${subscription.id}/resume`, { key: keys.sk_test, method: 'POST', idempotencyKey: ik() });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.status, res.body.cancelAt, res.body.cancelAtPeriodEnd, res.body.canceledAt, res.body.cancellationDetails.reason], ['active', null, false, null, null]);
    const [updated] = await api.knex('events').where({ type: 'customer.subscription.updated' }).whereRaw("data->>'id' = ?", [subscription.id]);
    assert.deepEqual(updated.data, res.body);
    await advanceUntilReady(clock.id, '2027-04-05T00:00:00.000Z');
    const now = (await api.request(`/v1/subscriptions/${subscription.id}`, { key: keys.sk_test })).body;
    assert.deepEqual([now.status, now.endedAt, now.currentPeriodStart], ['active', null, '2027-03-31T04:30:00.000Z']);
    assert.deepEqual(
      (await invoicesOf(subscription.id)).map((i: any) => [i.billingReason, i.periodStart, i.periodEnd, i.totalCents]),
      [
        ['subscription_create', '2027-01-31T04:30:00.000Z', '2027-02-28T04:30:00.000Z', 150000],
        ['subscription_cycle', '2027-02-28T04:30:00.000Z', '2027-03-31T04:30:00.000Z', 150000],
        ['subscription_cycle', '2027-03-31T04:30:00.000Z', '2027-04-30T04:30:00.000Z', 150000],
      ],
    );
  });

  it('a cancelAt inside the current period withdrawn by resume: its workflow no longer ends it there, and the rest of the cut period is billed as its share', async () => {
    const { clock, subscription } = await monthlyOnClock('cancel-at-soon@example.com', '2027-01-31T04:30:00.000Z', { cancelAt: '2027-02-20T04:30:00.000Z' });
    const resumed = (await api.request(`/v1/subscriptions/${subscription.id}/resume`, { key: keys.sk_test, method: 'POST', idempotencyKey: ik() })).body;
    assert.deepEqual([resumed.cancelAt, resumed.currentPeriodEnd], [null, '2027-02-20T04:30:00.000Z']);
    await advanceUntilReady(clock.id, '2027-03-05T00:00:00.000Z');
    const now = (await api.request(`/v1/subscriptions/${subscription.id}`, { key: keys.sk_test })).body;
    assert.deepEqual([now.status, now.endedAt, now.currentPeriodStart], ['active', null, '2027-02-28T04:30:00.000Z']);
    // The cut period's rest, 20 to 28 February, is billed as its share of the month (8 of 28 days):
    // with the 20 days billed at first, the month's price whole.
    assert.deepEqual(
      (await invoicesOf(subscription.id)).map((i: any) => [i.billingReason, i.periodStart, i.periodEnd, i.totalCents, i.lines[0].proration]),
      [
        ['subscription_create', '2027-01-31T04:30:00.000Z', '2027-02-20T04:30:00.000Z', 107143, true],
        ['subscription_cycle', '2027-02-20T04:30:00.000Z', '2027-02-28T04:30:00.000Z', 42857, true],
        ['subscription_cycle', '2027-02-28T04:30:00.000Z', '2027-03-31T04:30:00.000Z', 150000, false],
      ],
    );
  });

  it('canceled now: ended at the clock\'s time, its open invoice voided, customer.subscription.deleted', async () => {
    const { subscription } = await monthlyOnClock('now@example.com', '2027-01-31T04:30:00.000Z');
    const ended = await post(`/v1/subscriptions/${subscription.id}/cancel`, {});
    assert.deepEqual([ended.status, ended.canceledAt, ended.endedAt, ended.cancelAtPeriodEnd], ['canceled', '2027-01-31T04:30:00.000Z', '2027-01-31T04:30:00.000Z', false]);
    assert.deepEqual((await invoicesOf(subscription.id)).map((i: any) => i.status), ['void']);
    assert.equal((await api.knex('events').where({ type: 'customer.subscription.deleted' }).whereRaw("data->>'id' = ?", [subscription.id])).length, 1);
  });
});
