// Metered prices billed from usage on a test clock, through the API as a merchant drives it: a
// per-unit and a graduated metered price beside a licensed one, usage sent during the period in
// batches (duplicates dropped), billed in arrears at the renewal with the cents written out; usage
// sent late (its timestamp in an invoiced period) billed in the period it arrived in; the
// upcoming invoice showing the usage so far; an alert triggered once; the end billing the rest.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { startApiWithMerchant, type TestApi } from '../support/api';
import { billingFlow } from '../invoices/billing-flow';

describe('usage: metered prices billed on a test clock', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2026-12-20T00:00:00.000Z') })));
  after(() => api.close());
  const { post, read, advance, invoicesOf } = billingFlow(() => ({ api, keys }));

  const batch = async (events: object[]) => {
    const res = await api.request('/v1/meter_events/batch', { key: keys.sk_test, body: { events } });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const calls = (customerId: string, from: number, count: number, extra: object = {}) =>
    Array.from({ length: count }, (_, i) => ({ eventName: 'api_call', customerId, identifier: `call-${from + i}`, ...extra }));
  const linesOf = (invoice: any) => invoice.lines.map((l: any) => [l.description, l.quantity, l.unitAmountCents, l.amountCents, l.periodStart, l.periodEnd, l.priceId]);

  it('a per-unit and a graduated metered price: billed in arrears at the renewal from the period\'s usage, duplicates dropped, late usage in the next period', async () => {
    const apiCalls = await post('/v1/meters', { displayName: 'API calls', eventName: 'api_call', aggregation: 'count' });
    const storage = await post('/v1/meters', { displayName: 'Storage', eventName: 'storage_gb', aggregation: 'sum' });
    const base = await post('/v1/prices', { product: { name: 'Pro plan' }, unitAmountCents: 150000, interval: 'month' });
    // 2 cents a call; storage at 50 cents a GB for the first 100, then 20 cents.
    const perCall = await post('/v1/prices', { product: { name: 'API calls' }, unitAmountCents: 2, interval: 'month', usageType: 'metered', meterId: apiCalls.id });
    const perGb = await post('/v1/prices', {
      product: { name: 'Storage' },
      billingScheme: 'tiered',
      tiersMode: 'graduated',
      tiers: [{ upTo: 100, unitAmountCents: 50 }, { upTo: null, unitAmountCents: 20 }],
      interval: 'month',
      usageType: 'metered',
      meterId: storage.id,
    });
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: '2027-01-01T00:00:00.000Z' });
    const customer = await post('/v1/customers', { email: 'metered@example.com', testClockId: clock.id });
    // Usage before the subscription bills nothing.
    await batch([{ eventName: 'api_call', customerId: customer.id, identifier: 'before', timestamp: '2026-12-31T23:00:00.000Z' }]);
    const alert = await post('/v1/billing/alerts', { title: '1000 calls', meterId: apiCalls.id, threshold: 1000, customerId: customer.id });
    const subscription = await post('/v1/subscriptions', {
      customerId: customer.id,
      items: [{ priceId: base.id }, { priceId: perCall.id }, { priceId: perGb.id }],
      collectionMethod: 'send_invoice',
    });
    await api.workflows.settle();
    // A metered item makes no line in advance.
    const [first] = await invoicesOf(subscription.id);
    assert.deepEqual(linesOf(first), [['1 × Pro plan', 1, 150000, 150000, '2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z', base.id]]);

    // 600 calls at the start, each batch of 100 sent twice (a retry): the second counts nothing.
    for (let i = 0; i < 600; i += 100) {
      assert.deepEqual(await batch(calls(customer.id, i, 100)), { object: 'meter_event_batch', accepted: 100, duplicates: 0 });
      assert.deepEqual(await batch(calls(customer.id, i, 100)), { object: 'meter_event_batch', accepted: 0, duplicates: 100 });
    }
    await advance(clock.id, '2027-01-15T00:00:00.000Z');
    for (let i = 600; i < 1200; i += 100) await batch(calls(customer.id, i, 100));
    await batch([
      { eventName: 'storage_gb', customerId: customer.id, value: 60, identifier: 'gb-1' },
      { eventName: 'storage_gb', customerId: customer.id, value: 70, identifier: 'gb-2' },
      { eventName: 'storage_gb', customerId: customer.id, value: 70, identifier: 'gb-2' },
    ]);
    // The upcoming invoice shows the usage so far: 1200 calls (2400 cents), 130 GB (100 × 50 + 30 × 20 = 5600 cents).
    const upcoming = await read(`/v1/invoices/upcoming?subscriptionId=${subscription.id}`);
    assert.deepEqual(linesOf(upcoming), [
      ['1 × Pro plan', 1, 150000, 150000, '2027-02-01T00:00:00.000Z', '2027-03-01T00:00:00.000Z', base.id],
      ['1200 × API calls (usage)', 1200, 2, 2400, '2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z', perCall.id],
      ['130 × Storage (usage)', 130, 43, 5600, '2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z', perGb.id],
    ]);
    const summary = (await read(`/v1/meters/${apiCalls.id}/event_summaries?customerId=${customer.id}`)).data[0];
    assert.deepEqual([summary.startTime, summary.endTime, summary.aggregatedValue], ['2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z', 1200]);

    // The renewal on 1 February bills January's usage in arrears, with February's plan in advance.
    await advance(clock.id, '2027-02-02T00:00:00.000Z');
    const [, renewal] = await invoicesOf(subscription.id);
    assert.deepEqual(linesOf(renewal), linesOf(upcoming));
    assert.deepEqual([renewal.billingReason, renewal.subtotalCents, renewal.totalCents, renewal.periodStart], ['subscription_cycle', 158000, 158000, '2027-02-01T00:00:00.000Z']);
    // invoice.upcoming, three days before, showed the same lines (the usage had all been sent by then).
    const notices = (await read('/v1/events?type=invoice.upcoming&limit=100')).data.filter((e: any) => e.data.subscriptionId === subscription.id);
    assert.deepEqual([notices.at(-1).created, linesOf(notices.at(-1).data)], ['2027-01-29T00:00:00.000Z', linesOf(renewal)]);

    // Late: calls stamped in January (invoiced) arrive on 2 February, counted in February's period.
    await batch(calls(customer.id, 5000, 50, { timestamp: '2027-01-31T12:00:00.000Z' }));
    const february = (await read(`/v1/meters/${apiCalls.id}/event_summaries?customerId=${customer.id}`)).data[0];
    assert.deepEqual([february.startTime, february.aggregatedValue], ['2027-02-01T00:00:00.000Z', 50]);
    // By their timestamps, 1 to 31 January in Sri Lanka (midnight to midnight there) holds them all,
    // with the one sent before the subscription (04:30 on 1 January there), which was not billed.
    const january = (await read(`/v1/meters/${apiCalls.id}/event_summaries?customerId=${customer.id}&startTime=2026-12-31T18:30:00.000Z&endTime=2027-01-31T18:30:00.000Z`)).data[0];
    assert.equal(january.aggregatedValue, 1251);
    await advance(clock.id, '2027-03-02T00:00:00.000Z');
    const [, , march] = await invoicesOf(subscription.id);
    assert.deepEqual(linesOf(march).slice(1), [
      ['50 × API calls (usage)', 50, 2, 100, '2027-02-01T00:00:00.000Z', '2027-03-01T00:00:00.000Z', perCall.id],
      // No usage: the line all the same, at 0.
      ['0 × Storage (usage)', 0, 0, 0, '2027-02-01T00:00:00.000Z', '2027-03-01T00:00:00.000Z', perGb.id],
    ]);
    assert.equal(march.totalCents, 150100);

    // The alert: once, in January's period, when the 1000th call came.
    const triggered = (await read('/v1/events?type=billing.alert.triggered')).data.filter((e: any) => e.data.alertId === alert.id);
    assert.deepEqual(triggered.map((e: any) => e.data), [{ alertId: alert.id, customerId: customer.id, meterId: apiCalls.id, value: 1000, periodStart: '2027-01-01T00:00:00.000Z' }]);
    assert.equal(triggered[0].created, '2027-01-15T00:00:00.000Z');

    // Canceled now, the usage so far goes onto a last invoice.
    await batch(calls(customer.id, 6000, 10));
    await post(`/v1/subscriptions/${subscription.id}/cancel`, {});
    await api.workflows.settle();
    const last = (await invoicesOf(subscription.id)).at(-1);
    assert.deepEqual([last.billingReason, last.periodStart, last.periodEnd], ['subscription_update', '2027-03-01T00:00:00.000Z', '2027-03-02T00:00:00.000Z']);
    assert.deepEqual(linesOf(last).map((l: any[]) => l.slice(0, 4)), [['10 × API calls (usage)', 10, 2, 20], ['0 × Storage (usage)', 0, 0, 0]]);
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'canceled');
  });

  it('canceled at the period\'s end: the last period\'s usage on a last invoice; a subscription billing usage alone is active at once', async () => {
    const meter = await post('/v1/meters', { displayName: 'Messages', eventName: 'message', aggregation: 'sum' });
    const price = await post('/v1/prices', { product: { name: 'Messages' }, billingScheme: 'package', unitAmountCents: 1000, packageSize: 100, interval: 'month', usageType: 'metered', meterId: meter.id });
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: '2027-01-10T00:00:00.000Z' });
    const customer = await post('/v1/customers', { email: 'messages@example.com', testClockId: clock.id });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id });
    // Its first invoice is 0: paid at once, no card asked for.
    assert.equal(subscription.status, 'active');
    await api.workflows.settle();
    await batch([{ eventName: 'message', customerId: customer.id, value: 250 }]);
    await post(`/v1/subscriptions/${subscription.id}/cancel`, { atPeriodEnd: true });
    await advance(clock.id, '2027-02-11T00:00:00.000Z');
    const invoices = await invoicesOf(subscription.id);
    assert.deepEqual(
      invoices.map((i: any) => [i.billingReason, i.totalCents, i.lines.map((l: any) => [l.quantity, l.amountCents, l.periodStart, l.periodEnd])]),
      [
        ['subscription_create', 0, []],
        ['subscription_update', 3000, [[250, 3000, '2027-01-10T00:00:00.000Z', '2027-02-10T00:00:00.000Z']]],
      ],
    );
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'canceled');
  });

  it('two metered prices of one subscription on one meter: each line bills the period\'s usage, as the upcoming invoice showed', async () => {
    const meter = await post('/v1/meters', { displayName: 'Searches', eventName: 'search', aggregation: 'sum' });
    const perSearch = await post('/v1/prices', { product: { name: 'Searches' }, unitAmountCents: 5, interval: 'month', usageType: 'metered', meterId: meter.id });
    const indexing = await post('/v1/prices', { product: { name: 'Indexing' }, unitAmountCents: 2, interval: 'month', usageType: 'metered', meterId: meter.id });
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: '2027-01-01T00:00:00.000Z' });
    const customer = await post('/v1/customers', { email: 'searches@example.com', testClockId: clock.id });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, items: [{ priceId: perSearch.id }, { priceId: indexing.id }], collectionMethod: 'send_invoice' });
    await api.workflows.settle();
    await batch([{ eventName: 'search', customerId: customer.id, value: 300 }]);
    const expected = [
      ['300 × Searches (usage)', 300, 5, 1500, '2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z', perSearch.id],
      ['300 × Indexing (usage)', 300, 2, 600, '2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z', indexing.id],
    ];
    assert.deepEqual(linesOf(await read(`/v1/invoices/upcoming?subscriptionId=${subscription.id}`)), expected);
    await advance(clock.id, '2027-02-01T00:00:00.000Z');
    const renewal = (await invoicesOf(subscription.id)).find((i: any) => i.billingReason === 'subscription_cycle');
    assert.deepEqual([linesOf(renewal), renewal.totalCents], [expected, 2100]);
  });

  it('one subscription of a customer bills a meter: a second one on it is refused (items_invalid), also when both are made at once; once the first ends, another may', async () => {
    const meter = await post('/v1/meters', { displayName: 'Texts', eventName: 'text_sent', aggregation: 'count' });
    const perMessage = await post('/v1/prices', { product: { name: 'Messages' }, unitAmountCents: 3, interval: 'month', usageType: 'metered', meterId: meter.id });
    const bulk = await post('/v1/prices', { product: { name: 'Bulk messages' }, unitAmountCents: 1, interval: 'month', usageType: 'metered', meterId: meter.id });
    const base = await post('/v1/prices', { product: { name: 'Messaging plan' }, unitAmountCents: 100000, interval: 'month' });
    const create = (customerId: string, items: object[]) => api.request('/v1/subscriptions', { key: keys.sk_test, body: { customerId, items, collectionMethod: 'send_invoice' }, idempotencyKey: `meters-${Math.random()}` });

    const customer = await post('/v1/customers', { email: 'messages@example.com' });
    const first = await create(customer.id, [{ priceId: perMessage.id }]);
    assert.equal(first.status, 201, first.text);
    const second = await create(customer.id, [{ priceId: base.id }, { priceId: bulk.id }]);
    assert.deepEqual([second.status, second.body.reason, second.body.fields[0].path], [400, 'items_invalid', 'items']);
    assert.match(second.body.message, new RegExp(`subscription ${first.body.id} bills the meter ${meter.id}`));
    // Changed to bill it: refused the same way; a subscription without it goes on.
    const other = await create(customer.id, [{ priceId: base.id }]);
    assert.equal(other.status, 201, other.text);
    const change = await api.request(`/v1/subscriptions/${other.body.id}`, { key: keys.sk_test, body: { items: [{ priceId: bulk.id }] }, idempotencyKey: `meters-${Math.random()}` });
    assert.deepEqual([change.status, change.body.reason], [400, 'items_invalid']);
    await post(`/v1/subscriptions/${first.body.id}/cancel`);
    assert.equal((await create(customer.id, [{ priceId: bulk.id }])).status, 201);

    // Made at once, five rounds: one takes the meter.
    for (let round = 0; round < 5; round++) {
      const racer = await post('/v1/customers', { email: `racer${round}@example.com` });
      const answers = await Promise.all([create(racer.id, [{ priceId: perMessage.id }]), create(racer.id, [{ priceId: bulk.id }])]);
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, 400], answers.map((a) => a.text).join(' / '));
    }
  });
});
