import assert from 'node:assert/strict';
import { newId } from '../../crypto/ids';
import { startApi, type TestApi } from '../support/api';

describe('GET /v1/account', () => {
  // 2026-11-30 18:29:59.999Z is 23:59:59.999 on 30 November in Colombo.
  let api: TestApi;
  let merchant: Awaited<ReturnType<TestApi['merchant']>>;
  let clock: TestApi['clock'];

  before(async () => {
    api = await startApi({ startAt: new Date('2026-11-15T06:00:00.000Z') });
    clock = api.clock;
    merchant = await api.merchant({ name: 'Lanka Tea' });
  });
  after(() => api.close());

  async function payment(mode: 'test' | 'live', status: string, amountCents: number, succeededAt: string | null) {
    await api.knex('payments').insert({
      id: newId('payment'),
      account_id: merchant.accountId,
      mode,
      status,
      amount_cents: amountCents,
      created_at: clock.now(),
      succeeded_at: succeededAt,
    });
  }

  it('shows status, plan, saved cards, the billing settings (dunning ladder\'s end, proration, default anchor), whether live payments are open, and the monthly limit', async () => {
    const res = await api.request('/v1/account', { key: merchant.keys.sk_test });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      object: 'account',
      id: merchant.accountId,
      name: 'Lanka Tea',
      status: 'not_activated',
      plan: 'starter',
      savedCards: false,
      dunningEnd: 'unpaid',
      proration: 'second',
      billingCycleAnchor: 'now',
      livePaymentsOpen: false,
      liveActivatedAt: null,
      createdAt: clock.now().toISOString(),
      mode: 'test',
      monthlyLimit: {
        limitCents: api.config.plans.starter!.monthlyLimitCents,
        usedCents: 0,
        remainingCents: api.config.plans.starter!.monthlyLimitCents,
        periodStart: '2026-10-31T18:30:00.000Z',
        periodEnd: '2026-11-30T18:30:00.000Z',
      },
      pendingUpgradeRequest: null,
    });
  });

  it('counts this month\'s succeeded payments and those with the processor, per mode; refunds do not free room', async () => {
    await payment('test', 'succeeded', 100_000, '2026-11-02T00:00:00.000Z');
    await payment('test', 'refunded', 20_000, '2026-11-03T00:00:00.000Z');
    await payment('test', 'processing', 5_000, null);
    await payment('test', 'failed', 999_000, null);
    await payment('test', 'requires_payment_method', 888_000, null);
    await payment('test', 'succeeded', 70_000, '2026-10-31T18:29:59.999Z'); // October in Colombo
    await payment('live', 'succeeded', 300_000, '2026-11-05T00:00:00.000Z');
    const test = await api.request('/v1/account', { key: merchant.keys.sk_test });
    assert.equal(test.body.monthlyLimit.usedCents, 125_000);
    assert.equal(test.body.monthlyLimit.remainingCents, test.body.monthlyLimit.limitCents - 125_000);
    const live = await api.request('/v1/account', { key: merchant.keys.sk_live });
    assert.equal(live.body.mode, 'live');
    assert.equal(live.body.monthlyLimit.usedCents, 300_000);
  });

  it('starts a new count at midnight on the 1st, Sri Lankan time', async () => {
    await clock.set(new Date('2026-11-30T18:29:59.999Z'));
    assert.equal((await api.request('/v1/account', { key: merchant.keys.sk_test })).body.monthlyLimit.usedCents, 125_000);
    await clock.set(new Date('2026-11-30T18:30:00.000Z'));
    const december = await api.request('/v1/account', { key: merchant.keys.sk_test });
    assert.equal(december.body.monthlyLimit.usedCents, 5_000, 'only the payment still with the processor counts');
    assert.equal(december.body.monthlyLimit.periodStart, '2026-11-30T18:30:00.000Z');
    assert.equal(december.body.monthlyLimit.periodEnd, '2026-12-31T18:30:00.000Z');
  });

  it('shows live payments open once activated, and closed again while suspended', async () => {
    const activated = await api.merchant({ name: 'Active', activate: true });
    const res = await api.request('/v1/account', { key: activated.keys.sk_live });
    assert.equal(res.body.status, 'active');
    assert.equal(res.body.livePaymentsOpen, true);
    assert.equal(res.body.liveActivatedAt, clock.now().toISOString());
  });
});
