// A refund is dated as the payment it refunds: a payment of a test-clock customer's invoice was made
// at the clock's time, so its refund is created (and succeeds) at the clock's time, never at the
// service's, which may be months before the payment.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { startApiWithMerchant, type TestApi } from '../support/api';
import { at, billingFlow, DAY } from '../invoices/billing-flow';
import { refund } from './refund-flow';

describe('refunds of a test-clock customer\'s payment', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;

  // The service's time is January; the clock's is March, ahead of it.
  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());

  const { post, read, advance, customerWithCard, monthly, invoicesOf } = billingFlow(() => ({ api, keys }));

  it('is created and succeeds at the clock\'s time, not before its payment', async () => {
    const start = '2027-03-31T04:30:00.000Z';
    const { clock, customer } = await customerWithCard('clock-refund@example.com', start, '01/39');
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    await api.workflows.settle();
    const [invoice] = await invoicesOf(subscription.id);
    assert.equal(invoice.status, 'paid');
    const [paymentId] = await api.knex('payments').where({ invoice_id: invoice.id, status: 'succeeded' }).pluck('id');
    const payment = await read(`/v1/payments/${paymentId}`);
    assert.equal(payment.createdAt, start);

    const later = at(start, 2 * DAY);
    await advance(clock.id, later);
    for (const amountCents of [50000, undefined]) {
      const res = await refund(api, keys.sk_test, { paymentId, amountCents });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.createdAt, later);
      assert.ok(res.body.createdAt >= payment.createdAt);
      assert.deepEqual(await read(`/v1/refunds/${res.body.id}`), res.body);
      assert.equal(res.body.id.slice(3, 12), Date.parse(later).toString(36).padStart(9, '0'), 'the id carries the clock\'s time');
    }
    await api.clock.advance(DAY);
    await api.workflows.settle();
    const refunds = (await read(`/v1/refunds?paymentId=${paymentId}`)).data;
    assert.deepEqual(refunds.map((r: { status: string; succeededAt: string }) => [r.status, r.succeededAt]), [['succeeded', later], ['succeeded', later]]);
    const events = (await read('/v1/events?type=refund.succeeded')).data.filter((e: { data: { paymentId: string } }) => e.data.paymentId === paymentId);
    assert.deepEqual(events.map((e: { created: string }) => e.created), [later, later]);
  });
});
