// Test clocks on Temporal's own server (its time-skipping test server; skipped, saying so, where
// the binary is not installed), by the same workflow code as on the embedded engine (DESIGN.md
// decision 12): a subscription charged to the card on file renews on each month's end in the
// clock's time, a declined renewal climbs the dunning ladder, and a trial converts; the clock is
// ready only when all of it has settled.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { skipUnlessInstalled, startApiWithMerchant, type TestApi } from '../support/api';
import { at, billingFlow, DAY } from '../invoices/billing-flow';

describe('test clocks on a real Temporal server (time-skipping-server)', function () {
  this.timeout(180_000);
  let api: TestApi;
  let keys: MerchantKeys;
  before(async function () {
    skipUnlessInstalled(this, 'time-skipping-server');
    ({ api, keys } = await startApiWithMerchant({ engine: 'time-skipping-server' }));
  });
  after(() => api?.close());
  const { post, read, advance, customerWithCard, monthly, invoicesOf, chargesOf, declining } = billingFlow(() => ({ api, keys }));

  it('renewals on each month\'s end, in the clock\'s time, each paid once', async () => {
    const start = '2027-01-31T04:30:00.000Z';
    const { clock, customer } = await customerWithCard('temporal-renews@example.com', start, '01/39');
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    await api.workflows.settle();
    // Its first invoice paid, its workflow waits for the period's invoice.upcoming, not the 23-hour expiry.
    assert.equal((await read(`/v1/subscriptions/${sub.id}`)).status, 'active');
    const waits = await api.knex('clock_waits').where({ workflow_id: `subscription/${sub.id}` }).pluck('due_at');
    assert.deepEqual(waits.map((due: Date) => due.toISOString()), ['2027-02-25T04:30:00.000Z']);
    await advance(clock.id, '2027-04-01T00:00:00.000Z');
    const invoices = await invoicesOf(sub.id);
    assert.deepEqual(
      invoices.map((i: any) => [i.billingReason, i.periodStart, i.status, i.paidAt]),
      [
        ['subscription_create', start, 'paid', start],
        ['subscription_cycle', '2027-02-28T04:30:00.000Z', 'paid', '2027-02-28T04:30:00.000Z'],
        ['subscription_cycle', '2027-03-31T04:30:00.000Z', 'paid', '2027-03-31T04:30:00.000Z'],
      ],
    );
    for (const invoice of invoices) assert.equal((await chargesOf(invoice.id)).length, 1);
    assert.equal((await read(`/v1/subscriptions/${sub.id}`)).status, 'active');
  });

  it('on wall time, where real milliseconds pass within a request: a subscription\'s events are listed newest first by created', async () => {
    const subscription = await post('/v1/subscriptions', { customer: { email: 'temporal-wall@example.com' }, priceId: (await monthly()).id });
    const events = (await read('/v1/events?limit=100')).data.filter((e: { data: { id?: string; subscriptionId?: string; customerId?: string } }) => [e.data.id, e.data.subscriptionId, e.data.customerId].includes(subscription.id) || e.data.id === subscription.customerId);
    assert.ok(events.length >= 3, JSON.stringify(events.map((e: { type: string }) => e.type)));
    for (const [i, event] of events.slice(1).entries()) assert.ok(events[i].created >= event.created && events[i].id > event.id, `${events[i].type} ${events[i].created} then ${event.type} ${event.created}`);
  });

  it('a declined renewal retried on days 1 and 3 (past_due), and a 7-day trial that converts', async () => {
    const { clock, subscription } = await declining('temporal-dunned@example.com', '2027-01-10T04:30:00.000Z');
    const renewal = '2027-02-10T04:30:00.000Z';
    await advance(clock.id, at(renewal, 3 * DAY));
    const [, invoice] = await invoicesOf(subscription.id);
    assert.deepEqual([invoice.status, invoice.attemptCount, invoice.nextAttemptAt], ['open', 3, at(renewal, 7 * DAY)]);
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'past_due');

    const { clock: trialClock, customer } = await customerWithCard('temporal-trial@example.com', '2027-01-15T04:30:00.000Z', '01/39');
    const trial = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, trialDays: 7 });
    await advance(trialClock.id, '2027-01-23T00:00:00.000Z');
    const [, first] = await invoicesOf(trial.id);
    assert.deepEqual([first.periodStart, first.amountPaidCents, (await read(`/v1/subscriptions/${trial.id}`)).status], ['2027-01-22T04:30:00.000Z', 150000, 'active']);
  });
});
