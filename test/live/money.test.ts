// Live money after the first payment, on the gateway simulator: a card kept at a live checkout and
// charged by the merchant (a merchant-initiated PAY on the gateway's token, under the agreement
// the customer's consent set up), a live refund that waits for the next bank working day, a live
// subscription renewed on the kept card in the service's virtual time (test clocks are test mode's
// only), and the monthly limit counting live payments apart from test ones.
import assert from 'node:assert/strict';
import { ik } from '../support/api';
import { payAtProcessor } from '../checkouts/hosted-flow';
import { liveCheckout, livePayment, newPage, payInBrowser, startLive, stopLive, type Live } from './live-flow';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('live money on the gateway simulator', function () {
  this.timeout(180_000);
  let live: Live;
  let firstPaymentId: string;
  let card: any;
  const asLive = (path: string, body?: unknown) => live.api.request(path, { key: live.keys.sk_live, ...(body === undefined ? {} : { body, idempotencyKey: ik() }) });

  before(async function () {
    live = await startLive(this);
  });
  after(() => stopLive(live ?? {}));

  it('a card kept at a live checkout is charged by the merchant without the customer', async () => {
    const page = await newPage(live);
    const checkout = await liveCheckout(live, { saveCard: true });
    await payInBrowser(live, page, checkout, { expiry: '01/39', saveCard: true, email: 'sita@example.com' });
    firstPaymentId = checkout.payment.id;
    const paid = await livePayment(live, firstPaymentId);
    assert.deepEqual([paid.status, paid.cardSave], ['succeeded', 'saved']);
    [card] = (await asLive('/v1/cards?customerEmail=sita%40example.com')).body.data;
    assert.deepEqual([card.mode, card.scheme, card.last4, card.expiry, card.paymentId], ['live', 'visa', '1111', { month: 1, year: 2039 }, firstPaymentId]);

    const charged = await asLive(`/v1/cards/${card.id}/charge`, { amountCents: 200000, description: 'Tea Club, second box' });
    assert.equal(charged.status, 201, charged.text);
    await live.api.workflows.settle();
    const payment = await livePayment(live, charged.body.id);
    assert.deepEqual([payment.mode, payment.status, payment.savedCardId, payment.card], ['live', 'succeeded', card.id, { scheme: 'visa', last4: '1111' }]);
    // A merchant-initiated PAY on the gateway's token, under the first payment's agreement.
    const pay = live.simulator.requests.find((r) => r.method === 'PUT' && r.path.startsWith(`/order/${charged.body.id}.1/`));
    assert.ok(pay, 'the charge went to the gateway');
    const body = JSON.parse(pay.body);
    assert.deepEqual([body.apiOperation, body.agreement.id, body.transaction.source], ['PAY', `${firstPaymentId}.1`, 'MERCHANT']);
    await page.context().close();
  });

  it('a live refund is pending until the next bank working day, then succeeded; never above what was captured', async () => {
    const refund = await asLive('/v1/refunds', { paymentId: firstPaymentId, amountCents: 100000, reason: 'One tin dented' });
    assert.equal(refund.status, 201, refund.text);
    await live.api.workflows.settle();
    assert.equal((await asLive(`/v1/refunds/${refund.body.id}`)).body.status, 'pending');
    const tooMuch = await asLive('/v1/refunds', { paymentId: firstPaymentId, amountCents: 300000 });
    assert.deepEqual([tooMuch.status, tooMuch.body.reason], [400, 'amount']);
    // The gateway took the refund as a REFUND transaction named by the refund's id.
    assert.ok(live.simulator.requests.some((r) => r.method === 'PUT' && r.path === `/order/${firstPaymentId}.1/transaction/${refund.body.id}`));
    // A weekend at most lies between: four days reach the next working day whatever today is.
    await live.api.clock.advance(4 * DAY_MS);
    await live.api.workflows.settle();
    const done = (await asLive(`/v1/refunds/${refund.body.id}`)).body;
    assert.deepEqual([done.status, done.amountCents], ['succeeded', 100000]);
    const payment = await livePayment(live, firstPaymentId);
    assert.deepEqual([payment.status, payment.refundedCents], ['partially_refunded', 100000]);
  });

  it('a live subscription is charged on the kept card, and renewed on it a month later', async () => {
    const price = (await asLive('/v1/prices', { product: { name: 'Tea Club' }, unitAmountCents: 150000, interval: 'month' })).body;
    const [customer] = (await asLive('/v1/customers?email=sita%40example.com')).body.data;
    assert.equal(customer.defaultCardId, card.id);
    const made = await asLive('/v1/subscriptions', { customerId: customer.id, priceId: price.id });
    assert.equal(made.status, 201, made.text);
    await live.api.workflows.settle();
    const first = (await asLive(`/v1/invoices/${made.body.latestInvoiceId}`)).body;
    assert.equal(first.status, 'paid', JSON.stringify(first));
    await live.api.clock.advance(32 * DAY_MS);
    await live.api.workflows.settle();
    const subscription = (await asLive(`/v1/subscriptions/${made.body.id}`)).body;
    assert.equal(subscription.status, 'active');
    assert.notEqual(subscription.latestInvoiceId, first.id, 'a renewal invoice');
    const renewal = (await asLive(`/v1/invoices/${subscription.latestInvoiceId}`)).body;
    assert.deepEqual([renewal.status, renewal.amountPaidCents], ['paid', 150000]);
    const charges = await live.api.knex('payments').where({ invoice_id: renewal.id });
    assert.deepEqual(charges.map((c) => [c.mode, c.status, c.saved_card_id]), [['live', 'succeeded', card.id]]);
  });

  it('the monthly limit counts live payments apart from test ones', async () => {
    const used = async (key: string) => (await live.api.request('/v1/account', { key })).body.monthlyLimit.usedCents;
    const liveBefore = await used(live.keys.sk_live);
    const testBefore = await used(live.keys.sk_test);
    const test = (await live.api.request('/v1/checkouts', { key: live.keys.sk_test, idempotencyKey: ik(), body: { amountCents: 120000, description: 'Sample box' } })).body;
    await payAtProcessor(live.api, test.url, { number: '4111111111111111', expiry: '01/39', cvv: '100' }, { name: 'Nimal Perera', email: 'nimal@example.com' });
    await live.api.workflows.settle();
    assert.deepEqual([await used(live.keys.sk_test), await used(live.keys.sk_live)], [testBefore + 120000, liveBefore]);
    const page = await newPage(live);
    const checkout = await liveCheckout(live, { amountCents: 90000 });
    await payInBrowser(live, page, checkout, { expiry: '01/39' });
    assert.deepEqual([await used(live.keys.sk_test), await used(live.keys.sk_live)], [testBefore + 120000, liveBefore + 90000]);
    await page.context().close();
  });

  it('a live card deleted is deleted at the gateway: its token can never be charged again', async () => {
    const deleted = await live.api.request(`/v1/cards/${card.id}`, { key: live.keys.sk_live, method: 'DELETE' });
    assert.deepEqual([deleted.status, deleted.body.active], [200, false]);
    const removal = live.simulator.requests.filter((r) => r.method === 'DELETE' && r.path.startsWith('/token/'));
    assert.equal(removal.length, 1);
    assert.ok([...live.simulator.state.tokens.values()].every((t) => t.deleted), 'no token left at the gateway');
    const refused = await asLive(`/v1/cards/${card.id}/charge`, { amountCents: 200000, description: 'Tea Club, third box' });
    assert.deepEqual([refused.status, refused.body.reason], [409, 'card_not_reusable']);
  });
});
