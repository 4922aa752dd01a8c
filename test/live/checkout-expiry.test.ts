// A live checkout's expiry while the gateway's hosted page may still take the card: Pay pressed in
// the checkout's last minute opens a gateway session that lives a minute (the least the adapter
// asks for), so the customer can pay there after the checkout's 30 minutes. That payment must not
// be lost: the checkout is not closed while the gateway's page may still take the card, and an
// approval made then completes it.
import assert from 'node:assert/strict';
import type { GatewaySimulator } from '../../processor/gateway-simulator';
import { ik, type TestApi } from '../support/api';
import { enterCard, postPay } from '../checkouts/hosted-flow';
import type { MerchantKeys } from '../../db/merchants';
import { startLiveApi, stopLive } from './live-flow';

const SECOND_MS = 1_000;
const MINUTE_MS = 60 * SECOND_MS;

describe('a live checkout expiring while the gateway\'s page is open', function () {
  this.timeout(120_000);
  let api: TestApi;
  let simulator: GatewaySimulator;
  let keys: MerchantKeys;

  before(async () => {
    // No notification: only the service's own questions find the outcome.
    ({ api, simulator, keys } = await startLiveApi({ notifying: false }));
  });
  after(() => stopLive({ api, simulator }));

  it('paid on the gateway\'s page just after the checkout\'s 30 minutes: the payment succeeds, never canceled while the gateway took the money', async () => {
    const checkout = (await api.request('/v1/checkouts', { key: keys.sk_live, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Tea Club, first box' } })).body;
    await api.clock.advance(29 * MINUTE_MS + 30 * SECOND_MS);
    const pay = await postPay(checkout.url, { name: 'Nimal Perera', email: 'nimal@example.com' });
    assert.equal(pay.status, 303, pay.text);
    await api.workflows.settle();
    // The checkout's 30 minutes are up; the customer is still typing on the gateway's page.
    await api.clock.advance(40 * SECOND_MS);
    await api.workflows.settle();
    await enterCard(api, pay.location!, { number: '4111111111111111', expiry: '01/39', cvv: '100' });
    assert.equal(simulator.state.orders.get(`${checkout.payment.id}.1`)?.transactions[0]?.gatewayCode, 'APPROVED', 'the gateway took the money');
    await api.clock.advance(30 * MINUTE_MS);
    await api.workflows.settle();
    const after = (await api.request(`/v1/checkouts/${checkout.id}`, { key: keys.sk_live })).body;
    assert.deepEqual([after.status, after.payment.status], ['completed', 'succeeded']);
    const events = (await api.knex('events').where({ mode: 'live' }).whereIn('type', ['checkout.expired', 'checkout.completed', 'payment.succeeded', 'payment.failed']))
      .filter((e) => [checkout.id, checkout.payment.id].includes(e.data.id))
      .map((e) => e.type);
    assert.ok(!events.includes('checkout.expired'), events.join());
    assert.deepEqual(events.filter((t) => t === 'payment.succeeded'), ['payment.succeeded']);
  });
});
