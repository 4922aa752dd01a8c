// Review of issue 31's money paths over HTTP on test clocks: a change's invoice paid while the
// subscription's renewal is still unpaid leaves it past due; a renewal made while collection is
// paused (which takes no carried amount) is the invoice its upcoming preview showed.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { assertMoneyInvariants } from '../support/money-invariants';
import { billingFlow } from '../invoices/billing-flow';

const FEB_1 = '2027-01-31T18:30:00.000Z';
const FEB_15 = '2027-02-14T18:30:00.000Z';
const MAR_1 = '2027-02-28T18:30:00.000Z';

describe('subscriptions: changes reviewed (status after a change\'s invoice, previews while paused)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());
  const { post, read, advance, untilReady, customerWithCard, invoicesOf, declining } = billingFlow(() => ({ api, keys }));
  const price = (name: string, unitAmountCents: number) => post('/v1/prices', { product: { name }, unitAmountCents, interval: 'month' });
  const billed = (invoice: any) => ({ periodStart: invoice.periodStart, periodEnd: invoice.periodEnd, lines: invoice.lines, totalCents: invoice.totalCents, amountDueCents: invoice.amountDueCents });

  it('a downgrade invoiced at once (a credit, paid at 0) while the renewal is declined: the subscription stays past_due, its renewal open', async () => {
    const basic = await price('Basic', 50000);
    const { clock, subscription: sub } = await declining('review-past-due@example.com', FEB_1);
    await advance(clock.id, '2027-02-28T19:00:00.000Z');
    const [, renewal] = await invoicesOf(sub.id);
    assert.equal(renewal.status, 'open');
    assert.equal((await read(`/v1/subscriptions/${sub.id}`)).status, 'past_due');
    const changed = await post(`/v1/subscriptions/${sub.id}`, { priceId: basic.id, prorationBehavior: 'always_invoice' });
    await api.workflows.settle();
    const change = (await invoicesOf(sub.id))[2];
    assert.equal(change.billingReason, 'subscription_update');
    assert.ok(change.totalCents < 0, `a credit: ${change.totalCents}`);
    assert.equal(change.status, 'paid');
    assert.equal(changed.status, 'past_due', 'the answer');
    assert.equal((await read(`/v1/subscriptions/${sub.id}`)).status, 'past_due');
    assert.equal((await read(`/v1/invoices/${renewal.id}`)).status, 'open');
    await assertMoneyInvariants(api.knex, api.clock.now());
  });

  it('a credit carried over waits while collection is paused: the upcoming invoice is the renewal made while paused, to the cent', async () => {
    const pro = await price('Pro', 100000);
    const basic = await price('Basic', 50000);
    const { clock, customer } = await customerWithCard('review-paused@example.com', FEB_1, '01/39');
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: pro.id });
    await api.workflows.settle();
    await advance(clock.id, FEB_15);
    await post(`/v1/subscriptions/${sub.id}`, { priceId: basic.id, prorationBehavior: 'always_invoice' });
    await api.workflows.settle();
    assert.equal((await invoicesOf(sub.id))[1].totalCents, -25000);
    await post(`/v1/subscriptions/${sub.id}`, { pauseCollection: { behavior: 'keep_as_draft' } });
    const upcoming = await read(`/v1/invoices/upcoming?subscriptionId=${sub.id}`);
    await advance(clock.id, MAR_1);
    const renewal = (await invoicesOf(sub.id))[2];
    assert.equal(renewal.status, 'draft');
    assert.deepEqual(billed(upcoming), billed(renewal));
    await assertMoneyInvariants(api.knex, api.clock.now());
  });
  it('a renewal dropping a change that waits, while its invoice is being paid (the invoice locked, then the subscription): no deadlock, the payment goes first', async () => {
    const pro = await price('Pro', 300000);
    const { clock, subscription: sub } = await declining('review-lock-order@example.com', FEB_1);
    await advance(clock.id, '2027-02-28T06:30:00.000Z');
    const waiting = await post(`/v1/subscriptions/${sub.id}`, { priceId: pro.id, prorationBehavior: 'always_invoice', paymentBehavior: 'pending_if_incomplete' });
    await api.workflows.settle();
    assert.equal((await read(`/v1/invoices/${waiting.latestInvoiceId}`)).status, 'open');
    const payment = await api.knex.transaction();
    let renewed: Promise<unknown> | undefined;
    try {
      // A payment of the change's invoice takes its locks in this order (services/invoices/collect.ts).
      await payment.raw('select id from invoices where id = ? for update', [waiting.latestInvoiceId]);
      renewed = api.request(`/v1/test_helpers/test_clocks/${clock.id}/advance`, { key: keys.sk_test, body: { frozenTime: MAR_1 }, idempotencyKey: ik() });
      // The renewal's step waits for a lock (the invoice, or the subscription's while it holds the other).
      for (let i = 0; ; i++) {
        const { rows } = await api.knex.raw("select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database() and pid <> pg_backend_pid()");
        if (rows[0].n > 0) break;
        assert.ok(i < 2000, 'the renewal waits for a lock');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // Past PostgreSQL's deadlock_timeout (1 s) for the renewal's wait: a cycle is found from this side.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      await payment.raw('select id from subscriptions where id = ? for update', [sub.id]);
      await payment.commit();
    } catch (error) {
      await payment.rollback().catch(() => undefined);
      throw error;
    }
    assert.equal(((await renewed) as any)?.status, 200);
    await untilReady(clock.id);
    const row = await read(`/v1/subscriptions/${sub.id}`);
    assert.deepEqual([row.pendingUpdate, row.currentPeriodStart], [null, MAR_1]);
    assert.equal((await read(`/v1/invoices/${waiting.latestInvoiceId}`)).status, 'void');
  });
  for (const last of ['cancelAtPeriodEnd', 'cancelAt'] as const) {
    it(`an upgrade with create_prorations in a last period (${last}): no renewal will take its lines, so they are invoiced now, equal to the preview; none left waiting at the end`, async () => {
      const basic = await price('Basic', 100000);
      const pro = await price('Pro', 300000);
      const { clock, customer } = await customerWithCard(`review-last-${last}@example.com`, FEB_1, '01/39');
      const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: basic.id });
      await api.workflows.settle();
      await post(`/v1/subscriptions/${sub.id}`, last === 'cancelAtPeriodEnd' ? { cancelAtPeriodEnd: true } : { cancelAt: MAR_1 });
      await advance(clock.id, FEB_15);
      const preview = await post('/v1/invoices/preview', { subscriptionId: sub.id, priceId: pro.id, prorationDate: FEB_15 });
      await post(`/v1/subscriptions/${sub.id}`, { priceId: pro.id, prorationDate: FEB_15 });
      await api.workflows.settle();
      const made = (await invoicesOf(sub.id))[1];
      assert.ok(made !== undefined, 'an invoice made now');
      assert.deepEqual([made.billingReason, made.lines.map((l: any) => l.amountCents), made.status], ['subscription_update', [-50000, 150000], 'paid']);
      assert.deepEqual(billed(preview), billed(made));
      await advance(clock.id, MAR_1);
      assert.equal((await read(`/v1/subscriptions/${sub.id}`)).status, 'canceled');
      assert.equal((await api.knex('pending_prorations').where({ subscription_id: sub.id }).whereNull('invoice_id')).length, 0, 'no line left waiting');
      await assertMoneyInvariants(api.knex, api.clock.now());
    });
  }
  for (const end of ['cancelAtPeriodEnd', 'cancelAt'] as const) {
    it(`proration lines waiting when the subscription ends as scheduled (${end} set after the change): billed on a last invoice, not lost`, async () => {
      const basic = await price('Basic', 100000);
      const pro = await price('Pro', 300000);
      const { clock, customer } = await customerWithCard(`review-ends-${end}@example.com`, FEB_1, '01/39');
      const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: basic.id });
      await api.workflows.settle();
      await advance(clock.id, FEB_15);
      await post(`/v1/subscriptions/${sub.id}`, { priceId: pro.id, prorationDate: FEB_15 });
      await post(`/v1/subscriptions/${sub.id}`, end === 'cancelAtPeriodEnd' ? { cancelAtPeriodEnd: true } : { cancelAt: MAR_1 });
      await advance(clock.id, MAR_1);
      assert.equal((await read(`/v1/subscriptions/${sub.id}`)).status, 'canceled');
      const last = (await invoicesOf(sub.id))[1];
      assert.ok(last !== undefined, 'a last invoice');
      assert.deepEqual([last.lines.map((l: any) => [l.amountCents, l.proration]), last.status], [[[-50000, true], [150000, true]], 'paid']);
      assert.equal((await api.knex('pending_prorations').where({ subscription_id: sub.id }).whereNull('invoice_id')).length, 0, 'no line left waiting');
      await assertMoneyInvariants(api.knex, api.clock.now());
    });
  }
  it('a preview of a change billed from the next period (none) of a subscription that will not renew: 404, as its upcoming invoice, not a renewal never made', async () => {
    const basic = await price('Basic', 100000);
    const { clock, customer } = await customerWithCard('review-no-renewal@example.com', FEB_1, '01/39');
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: basic.id });
    await api.workflows.settle();
    await post(`/v1/subscriptions/${sub.id}`, { cancelAtPeriodEnd: true });
    await advance(clock.id, FEB_15);
    assert.equal((await api.request(`/v1/invoices/upcoming?subscriptionId=${sub.id}`, { key: keys.sk_test })).status, 404);
    const preview = await api.request('/v1/invoices/preview', { key: keys.sk_test, body: { subscriptionId: sub.id, quantity: 2, prorationBehavior: 'none' } });
    assert.equal(preview.status, 404, preview.text);
  });
});
