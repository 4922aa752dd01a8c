// Invoice charges and the monthly limit: charges made at the same moment for one account each
// count in the month's use (the payments' trigger) and are never refused for the limit, and the
// limit's notices go out once each, from the use each charge reads under the account's
// processing_usage row (db/invoice-charges.ts writeInvoiceCharge). Plans with small limits
// (test/account/limits.ts): starter is Rs. 1,000 a month, approaching at Rs. 800.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { limitEvents, withPlans } from '../account/limits';
import { payAndKeep } from '../cards/card-flow';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { billingFlow } from './billing-flow';

describe('invoice charges and the monthly limit', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant({ env: withPlans(), startAt: new Date('2027-03-10T06:00:00.000Z') })));
  after(() => api.close());

  const { post, read } = billingFlow(() => ({ api, keys }));

  it('six invoices charged at once: each counted and paid, none refused; approaching and reached go out once each', async () => {
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: '2027-03-10T06:00:00.000Z' });
    const email = 'tea-club@example.com';
    const customers = [];
    for (let i = 0; i < 6; i++) customers.push(await post('/v1/customers', { email, name: `Member ${i}`, testClockId: clock.id }));
    // The card's own payment, Rs. 10, counts too; the card becomes every one of the customers' default.
    await payAndKeep(api, keys, { email, amountCents: 1_000 });
    const price = await post('/v1/prices', { product: { name: 'Tea club' }, unitAmountCents: 20_000, interval: 'month' });
    const invoiceIds: string[] = [];
    for (const customer of customers) invoiceIds.push((await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, collectionMethod: 'send_invoice' })).latestInvoiceId);
    assert.deepEqual(await limitEvents(api, keys), []);

    // Rs. 10 + 6 × Rs. 200: past 80% at the fourth charge (Rs. 810), past the limit at the fifth (Rs. 1,010).
    const paid = await Promise.all(invoiceIds.map((id) => api.request(`/v1/invoices/${id}/pay`, { key: keys.sk_test, body: {}, idempotencyKey: ik('pay') })));
    assert.deepEqual(paid.map((res) => [res.status, res.body.status]), invoiceIds.map(() => [200, 'paid']));
    assert.equal((await read('/v1/account')).monthlyLimit.usedCents, 121_000);
    const events = await limitEvents(api, keys);
    assert.deepEqual(events.map((e) => e.type).sort(), ['account.limit.approaching', 'account.limit.reached']);
    for (const event of events) assert.ok(event.usedCents >= (event.type === 'account.limit.reached' ? 100_000 : 80_000), `${event.type} at ${event.usedCents}`);
  });
});
