// Billing cycle anchors at create, on test clocks over HTTP with the cents written out: the part
// period up to the anchor invoiced at once, prorated against the whole period ending at the
// anchor, by the second or (the account's setting) by the day; worth less than 1000 cents, a
// line of the first renewal invoice instead (the first invoice 0, the subscription active at
// once); `first_of_month` (midnight on the 1st in Sri Lanka) and a time; the account's default
// anchor; every refusal.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { billingFlow } from '../invoices/billing-flow';

describe('billingCycleAnchor on test clocks: part periods, the account\'s proration and default anchor, refusals', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  let dayKeys: MerchantKeys;
  before(async () => {
    ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') }));
    dayKeys = (await api.merchant({ activate: true, changes: { proration: 'day', billingCycleAnchor: 'first_of_month' } })).keys;
  });
  after(() => api.close());
  const bySecond = billingFlow(() => ({ api, keys }));
  const byDay = billingFlow(() => ({ api, keys: dayKeys }));
  const { post, read, advance, customerWithCard, monthly, invoicesOf, chargesOf } = bySecond;
  const lineOf = (l: any) => [l.amountCents, l.proration, l.periodStart, l.periodEnd];
  const start = '2027-01-15T04:30:00.000Z';
  // Midnight on 1 February in Sri Lanka.
  const february = '2027-01-31T18:30:00.000Z';

  it('first_of_month: the part period (16 days 14 hours of January\'s 31 days) invoiced now, 80242 cents by the second; renewals on the 1st', async () => {
    const { clock, customer } = await customerWithCard('anchor-fom@example.com', start, '01/39');
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, billingCycleAnchor: 'first_of_month' });
    assert.deepEqual([sub.status, sub.billingCycleAnchor, sub.currentPeriodStart, sub.currentPeriodEnd], ['incomplete', february, start, february]);
    await api.workflows.settle();
    const [first] = await invoicesOf(sub.id);
    assert.deepEqual([first.billingReason, first.status, first.amountPaidCents, first.periodStart, first.periodEnd], ['subscription_create', 'paid', 80242, start, february]);
    assert.deepEqual(first.lines.map(lineOf), [[80242, true, start, february]]);
    assert.equal((await read(`/v1/subscriptions/${sub.id}`)).status, 'active');
    await advance(clock.id, '2027-03-02T00:00:00.000Z');
    assert.deepEqual(
      (await invoicesOf(sub.id)).slice(1).map((i: any) => [i.periodStart, i.periodEnd, i.amountPaidCents, i.status]),
      [
        [february, '2027-02-28T18:30:00.000Z', 150000, 'paid'],
        ['2027-02-28T18:30:00.000Z', '2027-03-31T18:30:00.000Z', 150000, 'paid'],
      ],
    );
  });

  it('first_of_month with a part period worth less than 1000 cents (30 minutes: 101 cents): the first invoice 0 and paid, active at once; the part period a line of the first renewal invoice, which its preview shows', async () => {
    const lateStart = '2027-01-31T18:00:00.000Z';
    const { clock, customer } = await customerWithCard('anchor-small@example.com', lateStart, '01/39');
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, billingCycleAnchor: 'first_of_month' });
    assert.deepEqual([sub.status, sub.billingCycleAnchor, sub.checkoutUrl], ['active', february, null]);
    const [first] = await invoicesOf(sub.id);
    assert.deepEqual([first.status, first.amountDueCents, first.lines, await chargesOf(first.id)], ['paid', 0, [], []]);
    const upcoming = await read(`/v1/invoices/upcoming?subscriptionId=${sub.id}`);
    assert.deepEqual([upcoming.amountDueCents, upcoming.lines.map(lineOf)], [150101, [[101, true, lateStart, february], [150000, false, february, '2027-02-28T18:30:00.000Z']]]);
    await advance(clock.id, '2027-02-02T00:00:00.000Z');
    const [, renewal] = await invoicesOf(sub.id);
    assert.deepEqual([renewal.billingReason, renewal.status, renewal.amountPaidCents, renewal.lines.map(lineOf)], ['subscription_cycle', 'paid', 150101, upcoming.lines.map(lineOf)]);
    assert.deepEqual((await chargesOf(renewal.id)).map((c: any) => [c.status, c.amount_cents]), [['succeeded', 150101]]);
    await advance(clock.id, '2027-03-02T00:00:00.000Z');
    assert.equal((await invoicesOf(sub.id))[2].amountPaidCents, 150000, 'the part period is billed once');
  });

  it('a time anchor five days ahead: 24194 cents now (5 of the 31 days from 20 December), renewals on the 20th', async () => {
    const { clock, customer } = await customerWithCard('anchor-time@example.com', start, '01/39');
    const anchor = '2027-01-20T04:30:00.000Z';
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, billingCycleAnchor: anchor });
    assert.deepEqual([sub.billingCycleAnchor, sub.currentPeriodEnd], [anchor, anchor]);
    await advance(clock.id, '2027-01-21T00:00:00.000Z');
    assert.deepEqual(
      (await invoicesOf(sub.id)).map((i: any) => [i.periodStart, i.periodEnd, i.amountPaidCents, i.lines[0].proration]),
      [
        [start, anchor, 24194, true],
        [anchor, '2027-02-20T04:30:00.000Z', 150000, false],
      ],
    );
  });

  it('an account prorating by the day with first_of_month as its default anchor: a create naming none is anchored on the 1st, 16 whole days of 31 = 77419 cents; with a trial the default does not apply', async () => {
    const { customer } = await byDay.customerWithCard('anchor-day@example.com', start, '01/39');
    const price = await byDay.monthly();
    const sub = await byDay.post('/v1/subscriptions', { customerId: customer.id, priceId: price.id });
    assert.deepEqual([sub.billingCycleAnchor, sub.currentPeriodEnd], [february, february]);
    await api.workflows.settle();
    const [first] = await byDay.invoicesOf(sub.id);
    assert.deepEqual([first.status, first.amountPaidCents, first.lines.map(lineOf)], ['paid', 77419, [[77419, true, start, february]]]);
    const now = await byDay.post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, billingCycleAnchor: 'now' });
    assert.deepEqual([now.billingCycleAnchor, now.currentPeriodEnd], [start, '2027-02-15T04:30:00.000Z'], 'a named anchor wins over the default');
    const trial = await byDay.post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, trialDays: 3 });
    assert.deepEqual([trial.status, trial.billingCycleAnchor], ['trialing', '2027-01-18T04:30:00.000Z']);
  });

  it('refuses with 400 billing_cycle_anchor_invalid: a time not after now, over one period ahead, not a time; first_of_month on a weekly price; other than now with a trial', async () => {
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: start });
    const customer = await post('/v1/customers', { email: 'anchor-rules@example.com', testClockId: clock.id });
    const price = await monthly();
    const weekly = await post('/v1/prices', { product: { name: 'Weekly box' }, unitAmountCents: 5000, interval: 'week' });
    const refusal = async (body: Record<string, unknown>) => {
      const res = await api.request('/v1/subscriptions', { key: keys.sk_test, body: { customerId: customer.id, priceId: price.id, ...body }, idempotencyKey: ik() });
      return [res.status, res.body.reason ?? res.body.code, res.body.fields?.[0]?.path];
    };
    const invalid = [400, 'billing_cycle_anchor_invalid', 'billingCycleAnchor'];
    assert.deepEqual(await refusal({ billingCycleAnchor: start }), invalid);
    assert.deepEqual(await refusal({ billingCycleAnchor: '2027-01-15T04:29:59.000Z' }), invalid);
    assert.deepEqual(await refusal({ billingCycleAnchor: '2027-02-15T04:30:00.001Z' }), invalid);
    assert.deepEqual(await refusal({ billingCycleAnchor: 'tomorrow' }), invalid);
    assert.deepEqual(await refusal({ priceId: weekly.id, billingCycleAnchor: 'first_of_month' }), invalid);
    assert.deepEqual(await refusal({ trialDays: 3, billingCycleAnchor: '2027-02-01T00:00:00.000Z' }), invalid);
    assert.deepEqual(await refusal({ trialDays: 3, billingCycleAnchor: 'first_of_month' }), invalid);
    // One whole period ahead is allowed: the part period is then a whole one.
    const whole = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, billingCycleAnchor: '2027-02-15T04:30:00.000Z' });
    const [first] = await invoicesOf(whole.id);
    assert.deepEqual([whole.currentPeriodEnd, first.amountDueCents], ['2027-02-15T04:30:00.000Z', 150000]);
  });
});
