// account.limit.approaching and account.limit.reached as payments take the month's room on the
// hosted page, the refused path, refunds that free no room, and the month's count across midnight
// on the 1st in Sri Lankan time. Plans with small limits (./limits.ts): starter is Rs. 1,000.
import assert from 'node:assert/strict';
import { newId } from '../../crypto/ids';
import type { MerchantKeys } from '../../db/merchants';
import { startApi, type TestApi } from '../support/api';
import { handOver, limitEvents, openCheckout, payThrough, withPlans } from './limits';

describe('account.limit.approaching and account.limit.reached', () => {
  let api: TestApi;

  before(async () => {
    // 10 March 2027, 11:30 in Colombo: the month has three weeks to go.
    api = await startApi({ env: withPlans(), startAt: new Date('2027-03-10T06:00:00.000Z') });
  });
  after(() => api.close());

  const account = async (keys: MerchantKeys) => (await api.request('/v1/account', { key: keys.sk_test })).body;
  const MARCH = '2027-02-28T18:30:00.000Z';

  it('approaching goes out once, when the month\'s use reaches 80%, however many payments pass it; reached once, at the limit', async () => {
    const { keys } = await api.merchant({ activate: true });
    const checkouts = [];
    for (const amountCents of [70_000, 10_000, 5_000, 15_000]) checkouts.push(await openCheckout(api, keys.sk_test, amountCents));
    await handOver(api, checkouts[0]!.url);
    assert.deepEqual(await limitEvents(api, keys), [], '70% is not yet near');
    await handOver(api, checkouts[1]!.url);
    const at80 = await limitEvents(api, keys);
    assert.deepEqual(at80.map((e) => [e.type, e.mode, e.usedCents, e.periodStart]), [['account.limit.approaching', 'test', 80_000, MARCH]]);
    // The event carries the account as GET /v1/account shows it.
    assert.deepEqual(at80[0]!.data, await account(keys));
    assert.equal(at80[0]!.data.monthlyLimit.remainingCents, 20_000);
    await handOver(api, checkouts[2]!.url);
    assert.equal((await limitEvents(api, keys)).length, 1, 'a second payment past 80% sends nothing more');
    await handOver(api, checkouts[3]!.url);
    const events = await limitEvents(api, keys);
    assert.deepEqual(events.map((e) => [e.type, e.mode, e.usedCents]), [
      ['account.limit.approaching', 'test', 80_000],
      ['account.limit.reached', 'test', 100_000],
    ]);
    assert.equal(events[1]!.data.monthlyLimit.remainingCents, 0);
    // Live has its own count: nothing of test mode's reaches it.
    const live = await api.request('/v1/account', { key: keys.sk_live });
    assert.equal(live.body.monthlyLimit.usedCents, 0);
  });

  it('a payment refused for the limit sends reached once, though the attempt itself rolled back; approaching is not sent for it', async () => {
    const { keys } = await api.merchant({ activate: true });
    // Both fit when made; paying the second would take the month to 120%.
    const first = await openCheckout(api, keys.sk_test, 60_000);
    const second = await openCheckout(api, keys.sk_test, 60_000);
    await handOver(api, first.url);
    assert.deepEqual(await limitEvents(api, keys), []);
    const refused = await handOver(api, second.url);
    assert.equal(refused.status, 409);
    assert.match(refused.text, /data-reason="monthly_limit_reached"/);
    const payment = (await api.request(`/v1/checkouts/${second.id}`, { key: keys.sk_test })).body.payment;
    assert.equal(payment.status, 'requires_payment_method', 'the refused attempt wrote nothing');
    const events = await limitEvents(api, keys);
    assert.deepEqual(events.map((e) => [e.type, e.mode, e.usedCents, e.periodStart]), [['account.limit.reached', 'test', 60_000, MARCH]]);
    assert.equal((await handOver(api, second.url)).status, 409);
    assert.equal((await limitEvents(api, keys)).length, 1, 'refused again: nothing more this month');
  });

  it('refunds free no room: a refunded payment of this month still counts, and the next payment reaches the limit', async () => {
    const { accountId, keys } = await api.merchant({ activate: true });
    const refunded = (status: string, amountCents: number, refundedCents: number) => ({
      id: newId('payment'), account_id: accountId, mode: 'test', status, amount_cents: amountCents, refunded_cents: refundedCents,
      created_at: api.clock.now(), succeeded_at: api.clock.now(),
    });
    await api.knex('payments').insert([refunded('refunded', 50_000, 50_000), refunded('partially_refunded', 40_000, 10_000)]);
    assert.equal((await account(keys)).monthlyLimit.usedCents, 90_000);
    const over = await api.request('/v1/checkouts', { key: keys.sk_test, idempotencyKey: `refunds-${accountId}`, body: { amountCents: 10_001, description: 'over' } });
    assert.equal(over.status, 409);
    assert.equal(over.body.reason, 'monthly_limit_reached');
    await handOver(api, (await openCheckout(api, keys.sk_test, 10_000)).url);
    assert.deepEqual((await limitEvents(api, keys)).map((e) => [e.type, e.usedCents]), [
      ['account.limit.approaching', 100_000],
      ['account.limit.reached', 100_000],
    ]);
  });
});

describe('the monthly limit across midnight on the 1st, Sri Lankan time', () => {
  // 2027-01-31T18:30:00.000Z is midnight on 1 February in Colombo (UTC+05:30).
  const FEBRUARY = '2027-01-31T18:30:00.000Z';
  const JANUARY = '2026-12-31T18:30:00.000Z';
  let api: TestApi;

  before(async () => {
    api = await startApi({ env: withPlans(), startAt: new Date('2027-01-31T18:00:00.000Z') });
  });
  after(() => api.close());

  it('a payment at 23:59 on the 31st counts in January, one at 00:00 on the 1st in February; each month gets its own notices', async () => {
    const { keys } = await api.merchant({ activate: true });
    const use = async () => (await api.request('/v1/account', { key: keys.sk_test })).body.monthlyLimit;
    await api.clock.set(new Date('2027-01-31T18:29:00.000Z'));
    await payThrough(api, keys.sk_test, 80_000);
    assert.deepEqual(await use(), { limitCents: 100_000, usedCents: 80_000, remainingCents: 20_000, periodStart: JANUARY, periodEnd: FEBRUARY });
    await api.clock.set(new Date(Date.parse(FEBRUARY) - 1));
    assert.equal((await use()).usedCents, 80_000, 'still January at 23:59:59.999');
    await api.clock.set(new Date(FEBRUARY));
    assert.deepEqual(await use(), { limitCents: 100_000, usedCents: 0, remainingCents: 100_000, periodStart: FEBRUARY, periodEnd: '2027-02-28T18:30:00.000Z' });
    // Rs. 900 would not have fitted in January (800 used); it fits in February.
    await payThrough(api, keys.sk_test, 90_000);
    assert.equal((await use()).usedCents, 90_000);
    const events = await limitEvents(api, keys);
    assert.deepEqual(events.map((e) => [e.type, e.usedCents, e.periodStart, e.created]), [
      ['account.limit.approaching', 80_000, JANUARY, '2027-01-31T18:29:00.000Z'],
      ['account.limit.reset', 0, FEBRUARY, FEBRUARY],
      ['account.limit.approaching', 90_000, FEBRUARY, FEBRUARY],
    ]);
  });
});
