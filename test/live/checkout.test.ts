// A live checkout end to end on the gateway simulator, in a real browser: Pay sends the customer
// to the gateway's hosted page, and the outcome is what the gateway says when the order is read
// back, never the browser's return. Skipped, saying so, where no chromium is installed.
import assert from 'node:assert/strict';
import { liveCheckout, livePayment, newPage, payInBrowser, startLive, stopLive, type Live } from './live-flow';

describe('live checkout on the gateway simulator, in a browser', function () {
  this.timeout(120_000);
  let live: Live;

  before(async function () {
    live = await startLive(this);
  });
  after(() => stopLive(live ?? {}));

  it('01/39 is paid: the gateway\'s page, back to the receipt, the payment succeeded with its card and fee', async () => {
    const page = await newPage(live);
    const checkout = await liveCheckout(live);
    await payInBrowser(live, page, checkout, { expiry: '01/39' });
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Payment received');
    const payment = await livePayment(live, checkout.payment.id);
    assert.deepEqual([payment.mode, payment.status, payment.card, payment.amountCents], ['live', 'succeeded', { scheme: 'visa', last4: '1111' }, 350000]);
    assert.ok(payment.feeCents > 0 && payment.feeCents + payment.netCents === 350000, JSON.stringify(payment));
    // Asked of the gateway by the payment's own id (RETRIEVE_ORDER), not told by the browser.
    assert.ok(live.simulator.requests.some((r) => r.method === 'GET' && r.path === `/order/${checkout.payment.id}.1`));
    const [event] = await live.api.knex('events').where({ account_id: live.accountId, mode: 'live', type: 'payment.succeeded' });
    assert.equal(event.data.id, checkout.payment.id);
    await page.context().close();
  });

  for (const [expiry, cvv, message] of [
    ['05/39', '100', 'The card was declined by its bank.'],
    ['04/27', '100', 'The card has expired.'],
    ['08/28', '100', 'The card\'s bank did not answer in time; the payment was reversed.'],
    ['01/39', '102', 'The card\'s security code (CVV) does not match.'],
  ] as const) {
    it(`${expiry} with security code ${cvv} fails: "${message}", and the checkout stays open for another card`, async () => {
      const page = await newPage(live);
      const checkout = await liveCheckout(live);
      await payInBrowser(live, page, checkout, { expiry, cvv });
      assert.match((await page.getByRole('alert').first().textContent()) ?? '', /declined|expired|not/i);
      const payment = await livePayment(live, checkout.payment.id);
      assert.deepEqual([payment.status, payment.failureMessage], ['failed', message]);
      const again = await live.api.request(`/v1/checkouts/${checkout.id}`, { key: live.keys.sk_live });
      assert.equal(again.body.status, 'open');
      await page.context().close();
    });
  }

  it('05/37 is unknown at first: processing, then approved when the gateway is asked again 10 s or more later', async () => {
    const page = await newPage(live);
    const checkout = await liveCheckout(live);
    await payInBrowser(live, page, checkout, { expiry: '05/37' });
    assert.equal((await livePayment(live, checkout.payment.id)).status, 'processing', 'the gateway does not know yet');
    // The checkout's workflow asks again a minute later: the gateway knows by then.
    await live.api.clock.advance(60_000);
    await live.api.workflows.settle();
    const payment = await livePayment(live, checkout.payment.id);
    assert.deepEqual([payment.status, payment.card], ['succeeded', { scheme: 'visa', last4: '1111' }]);
    await page.reload();
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Payment received');
    await page.context().close();
  });
});
