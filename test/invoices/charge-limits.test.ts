// Invoice charges and the monthly limit: charges made at the same moment for one account each
// count in the month's use (the payments' trigger) and are never refused for the limit, and the
// limit's notices go out once each, from the use each charge reads under the account's
// processing_usage row (db/invoice-charges.ts writeInvoiceCharges). Plans with small limits
// (test/account/limits.ts): starter is Rs. 1,000 a month, approaching at Rs. 800.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { limitEvents, withPlans } from '../account/limits';
import { payAndKeep } from '../cards/card-flow';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { billingFlow } from './billing-flow';
import { newId } from '../../crypto/ids';
import { chargedCard, writeInvoiceCharges } from '../../db/invoice-charges';
import { findInvoice } from '../../db/invoices';
import { newChargeRow } from '../../db/saved-cards';
import { centsFromDb } from '../../domain/money';
import { chargeInvoice } from '../../services/invoices/collect';
import { serviceDeps } from '../cards/card-flow';

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

  it('a charge written by a run the process stopped in before its notices: the retried attempt sends them', async () => {
    // A month of its own: the test before took the first merchant's to its limit.
    ({ keys } = await api.merchant());
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: '2027-03-10T06:00:00.000Z' });
    const email = 'one-big-order@example.com';
    const customer = await post('/v1/customers', { email, testClockId: clock.id });
    await payAndKeep(api, keys, { email, amountCents: 1_000 });
    const price = await post('/v1/prices', { product: { name: 'Estate crate' }, unitAmountCents: 85_000, interval: 'month' });
    const invoice = await findInvoice(api.knex, (await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, collectionMethod: 'send_invoice' })).latestInvoiceId);
    const before = (await limitEvents(api, keys)).length;
    // Attempt 1's payment written as openAttempt writes it (Rs. 10 + Rs. 850: past 80%), then the process stopped.
    const card = (await chargedCard(api.knex, invoice.customer_id, invoice.subscription_id))!;
    const now = invoice.finalized_at!;
    const payment = { ...newChargeRow({ card, id: newId('payment', now.getTime()), amountCents: centsFromDb(invoice.amount_due_cents), description: `Invoice ${invoice.number}`, reference: invoice.number, now }), invoice_id: invoice.id, invoice_attempt: 1 };
    assert.ok((await writeInvoiceCharges(api.knex, [{ payment, card }], api.service.clock.now()))[0]);
    assert.equal((await limitEvents(api, keys)).length, before);

    assert.deepEqual(await chargeInvoice(serviceDeps(api), invoice.id, 1), { kind: 'paid' });
    const approaching = (await limitEvents(api, keys)).slice(before);
    assert.deepEqual(approaching.map((e) => [e.type, e.usedCents]), [['account.limit.approaching', 86_000]]);
  });
});
