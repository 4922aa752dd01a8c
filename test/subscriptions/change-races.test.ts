// Changes of a subscription's items at once with each other, with a renewal and with a payment,
// over HTTP on test clocks: they are taken one after the other under the subscription's lock (or
// refused, 409), nothing is charged twice, a proration line goes onto one invoice only, a retry
// with the same Idempotency-Key makes nothing more, and the money over every invoice and payment
// holds (test/support/money-invariants.ts).
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { assertMoneyInvariants } from '../support/money-invariants';
import { payAndKeep } from '../cards/card-flow';
import { billingFlow } from '../invoices/billing-flow';

const FEB_1 = '2027-01-31T18:30:00.000Z';
const FEB_15 = '2027-02-14T18:30:00.000Z';
const MAR_1 = '2027-02-28T18:30:00.000Z';

describe('subscriptions: changes racing changes, renewals and payments', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());
  const { post, read, advance, customerWithCard, invoicesOf, declining } = billingFlow(() => ({ api, keys }));
  const request = (path: string, body: unknown, idempotencyKey = ik()) => api.request(path, { key: keys.sk_test, body, idempotencyKey });
  const price = (name: string, unitAmountCents: number) => post('/v1/prices', { product: { name }, unitAmountCents, interval: 'month' });
  let n = 0;
  const subscribed = async (priceId: string, quantity = 1) => {
    const { clock, customer } = await customerWithCard(`race-${++n}@example.com`, FEB_1, '01/39');
    const sub = await post('/v1/subscriptions', { customerId: customer.id, items: [{ priceId, quantity }] });
    await api.workflows.settle();
    return { clock, sub };
  };
  const settled = async () => {
    await api.workflows.settle();
    await assertMoneyInvariants(api.knex, api.clock.now());
  };

  it('two changes at once, five rounds: taken one after the other; the two invoices together cost what one change to the last quantity would (the one in between credited as it was charged)', async () => {
    const seats = await price('Seats', 2500);
    for (let round = 0; round < 5; round++) {
      const { clock, sub } = await subscribed(seats.id);
      await advance(clock.id, FEB_15);
      const answers = await Promise.all([2, 3].map((quantity) => request(`/v1/subscriptions/${sub.id}`, { quantity, prorationBehavior: 'always_invoice' })));
      assert.deepEqual(answers.map((a) => a.status), [200, 200], answers.map((a) => a.text).join());
      await settled();
      const last = (await read(`/v1/subscriptions/${sub.id}`)).quantity;
      const made = (await invoicesOf(sub.id)).slice(1);
      assert.equal(made.length, 2);
      // 1 → last directly on the 15th: -1250 + last × 1250.
      assert.equal(made[0].totalCents + made[1].totalCents, -1250 + last * 1250, `round ${round}`);
      assert.deepEqual(made.map((i: any) => i.status), ['paid', 'paid']);
    }
  });

  it('two pending_if_incomplete changes at once: one waits, the other 409 subscription_change_refused; one invoice', async () => {
    const pro = await price('Pro', 300000);
    const { clock, subscription: sub } = await declining(`race-pending-${++n}@example.com`, FEB_1);
    await advance(clock.id, FEB_15);
    const body = { priceId: pro.id, prorationBehavior: 'always_invoice', paymentBehavior: 'pending_if_incomplete' };
    const answers = await Promise.all([request(`/v1/subscriptions/${sub.id}`, body), request(`/v1/subscriptions/${sub.id}`, { ...body, quantity: undefined })]);
    assert.deepEqual(answers.map((a) => [a.status, a.body.reason]).sort(), [[200, undefined], [409, 'subscription_change_refused']]);
    await settled();
    assert.equal((await invoicesOf(sub.id)).length, 2, 'the first invoice and the one change\'s');
  });

  it('the same change retried with its Idempotency-Key at once and after: one invoice, one charge, the same answer', async () => {
    const basic = await price('Basic', 100000);
    const pro = await price('Pro', 300000);
    const { clock, sub } = await subscribed(basic.id);
    await advance(clock.id, FEB_15);
    const key = ik();
    const body = { priceId: pro.id, prorationBehavior: 'always_invoice' };
    const answers = await Promise.all([request(`/v1/subscriptions/${sub.id}`, body, key), request(`/v1/subscriptions/${sub.id}`, body, key)]);
    // One made it; the other replayed it or was told the first is still in progress.
    assert.ok(answers.some((a) => a.status === 200), answers.map((a) => a.text).join());
    for (const a of answers) assert.ok(a.status === 200 || (a.status === 409 && a.body.reason?.startsWith('idempotency')), a.text);
    const again = await request(`/v1/subscriptions/${sub.id}`, body, key);
    assert.deepEqual([again.status, again.body.latestInvoiceId], [200, answers.find((a) => a.status === 200)!.body.latestInvoiceId]);
    await settled();
    const invoices = await invoicesOf(sub.id);
    assert.deepEqual(invoices.map((i: any) => i.totalCents), [100000, 100000]);
    assert.equal(Number((await api.knex('payments').where({ invoice_id: invoices[1].id, status: 'succeeded' }).count({ n: '*' }))[0]!.n), 1);
  });

  it('a change racing its renewal, eight rounds: its proration lines go onto one invoice only, the renewal\'s or the next one\'s, and one renewal is made', async () => {
    const basic = await price('Basic', 100000);
    const pro = await price('Pro', 300000);
    const outcomes = new Set<string>();
    for (let round = 0; round < 8; round++) {
      const { clock, sub } = await subscribed(basic.id);
      await advance(clock.id, '2027-02-27T18:30:00.000Z');
      const advancing = request(`/v1/test_helpers/test_clocks/${clock.id}/advance`, { frozenTime: MAR_1 });
      // Later each round, so the change meets the renewal at different points.
      await new Promise((resolve) => setTimeout(resolve, round * 8));
      const changed = await request(`/v1/subscriptions/${sub.id}`, { priceId: pro.id });
      assert.equal(changed.status, 200, changed.text);
      assert.equal((await advancing).status, 200);
      for (let i = 0; (await read(`/v1/test_helpers/test_clocks/${clock.id}`)).status !== 'ready'; i++) {
        assert.ok(i < 1000);
        await api.workflows.settle();
      }
      await settled();
      const invoices = await invoicesOf(sub.id);
      assert.deepEqual(invoices.map((i: any) => i.periodStart), [FEB_1, MAR_1], `round ${round}: one renewal`);
      const rows = await api.knex('pending_prorations').where({ subscription_id: sub.id }).select('invoice_id', 'line');
      assert.equal(rows.length, 2);
      const renewal = invoices[1];
      const onRenewal = renewal.lines.filter((l: any) => l.proration);
      const upcoming = (await api.request(`/v1/invoices/upcoming?subscriptionId=${sub.id}`, { key: keys.sk_test })).body;
      const onNext = upcoming.lines.filter((l: any) => l.proration);
      // Made before the renewal, a day early (the clock not yet moved): that day's lines on the
      // renewal, at Pro; at its instant (the clock moved, the renewal not yet taken): lines of 0;
      // after it: the whole of March's, on April's invoice. March is billed at Pro every way.
      const outcome = JSON.stringify([renewal.lines[0].amountCents, onRenewal.map((l: any) => l.amountCents), onNext.map((l: any) => l.amountCents)]);
      const taker = { [JSON.stringify([300000, [-3571, 10714], []])]: renewal.id, [JSON.stringify([300000, [0, 0], []])]: renewal.id, [JSON.stringify([100000, [], [-100000, 300000]])]: null }[outcome];
      assert.notEqual(taker, undefined, `round ${round}: ${outcome}`);
      assert.ok(rows.every((r: any) => r.invoice_id === taker), 'taken by the one invoice, or waiting');
      outcomes.add(outcome);
    }
    console.log(`      (outcomes seen: ${[...outcomes].join(' ')})`);
  });

  it('a change racing a payment of the subscription\'s open invoice: both made, each invoice paid once', async () => {
    const pro = await price('Pro', 300000);
    const email = `race-pay-${++n}@example.com`;
    const { clock, subscription: sub } = await declining(email, FEB_1);
    await advance(clock.id, '2027-02-28T19:00:00.000Z');
    const [, renewal] = await invoicesOf(sub.id);
    assert.equal(renewal.status, 'open');
    const { card } = await payAndKeep(api, keys, { email, expiry: '01/39' });
    await post(`/v1/subscriptions/${sub.id}`, { cardId: card.id });
    const [paid, changed] = await Promise.all([request(`/v1/invoices/${renewal.id}/pay`, {}), request(`/v1/subscriptions/${sub.id}`, { priceId: pro.id, prorationBehavior: 'always_invoice' })]);
    assert.deepEqual([paid.status, paid.body.status, changed.status], [200, 'paid', 200], `${paid.text} ${changed.text}`);
    await settled();
    const invoices = await invoicesOf(sub.id);
    assert.deepEqual(invoices.map((i: any) => i.status), ['paid', 'paid', 'paid']);
    for (const invoice of invoices) assert.equal(Number((await api.knex('payments').where({ invoice_id: invoice.id }).whereIn('status', ['succeeded']).count({ n: '*' }))[0]!.n), 1, invoice.id);
    assert.equal((await read(`/v1/subscriptions/${sub.id}`)).status, 'active');
  });
});
