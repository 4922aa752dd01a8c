// The gateway's notifications (POST /processor-notifications/{accountId}/{mode}): the secret
// checked (a wrong or missing one refused, 401), and an accepted one only a hint that makes the
// payment's settle step read the order again: what is recorded is still what the gateway says.
import assert from 'node:assert/strict';
import type { GatewaySimulator } from '../../processor/gateway-simulator';
import { ik, type TestApi } from '../support/api';
import { enterCard, payAtProcessor, postPay } from '../checkouts/hosted-flow';
import type { MerchantKeys } from '../../db/merchants';
import { NOTIFICATION_SECRET, startLiveApi, stopLive } from './live-flow';

describe('gateway notifications', function () {
  this.timeout(120_000);
  let api: TestApi;
  let simulator: GatewaySimulator;
  let keys: MerchantKeys;
  let accountId: string;

  before(async () => {
    // Notifications from the simulator itself carry no secret: the test posts its own.
    ({ api, simulator, keys, accountId } = await startLiveApi({ notifying: false }));
  });
  after(() => stopLive({ api, simulator }));

  const notify = (path: string, orderId: string, secret?: string) =>
    fetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(secret === undefined ? {} : { 'x-notification-secret': secret }) },
      // What a forged notification would claim: it decides nothing.
      body: JSON.stringify({ order: { id: orderId, status: 'CAPTURED' }, result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } }),
    });

  /** A live payment the gateway answers UNKNOWN for at first (05/37), the customer back from its page. */
  async function unknownPayment(): Promise<string> {
    const checkout = (await api.request('/v1/checkouts', { key: keys.sk_live, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Tea Club, first box' } })).body;
    await payAtProcessor(api, checkout.url, { number: '5123450000000008', expiry: '05/37', cvv: '100' }, { name: 'Nimal Perera', email: 'nimal@example.com' });
    await api.workflows.settle();
    return checkout.payment.id;
  }
  const status = async (paymentId: string) => (await api.request(`/v1/payments/${paymentId}`, { key: keys.sk_live })).body.status;

  it('a wrong or missing secret, another account or mode: 401 and nothing read; a malformed address: 404', async () => {
    const paymentId = await unknownPayment();
    const asked = () => simulator.requests.filter((r) => r.method === 'GET' && r.path === `/order/${paymentId}.1`).length;
    const before = asked();
    await api.clock.advance(10_000);
    const path = `/processor-notifications/${accountId}/live`;
    for (const res of [
      await notify(path, `${paymentId}.1`, 'not-the-secret'),
      await notify(path, `${paymentId}.1`),
      await notify(`/processor-notifications/${accountId}/test`, `${paymentId}.1`, NOTIFICATION_SECRET),
      await notify('/processor-notifications/acct_000000000000000000000000/live', `${paymentId}.1`, NOTIFICATION_SECRET),
    ]) {
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { error: 'notification secret refused' });
    }
    assert.equal((await notify(`/processor-notifications/${accountId}/sandbox`, `${paymentId}.1`, NOTIFICATION_SECRET)).status, 404);
    await api.workflows.settle();
    assert.equal(asked(), before, 'the gateway was not asked again');
    assert.equal(await status(paymentId), 'processing');
  });

  it('the right secret makes the payment read again at once: recorded as the gateway says then, not as the notification claims', async () => {
    const paymentId = await unknownPayment();
    const path = `/processor-notifications/${accountId}/live`;
    // Before the gateway knows: the notification claims approval, the order still says UNKNOWN.
    const early = await notify(path, `${paymentId}.1`, NOTIFICATION_SECRET);
    assert.deepEqual([early.status, await early.json()], [200, { received: true }]);
    await api.workflows.settle();
    assert.equal(await status(paymentId), 'processing');
    // 10 s on, the gateway knows; the checkout's own question is still 50 s away: the hint asks now.
    await api.clock.advance(10_000);
    assert.equal((await notify(path, `${paymentId}.1`, NOTIFICATION_SECRET)).status, 200);
    await api.workflows.settle();
    assert.equal(await status(paymentId), 'succeeded');
    // A hint about a payment decided, or an order that is no payment of the account: nothing to do.
    assert.equal((await notify(path, `${paymentId}.1`, NOTIFICATION_SECRET)).status, 200);
    assert.equal((await notify(path, 'pay_000000000000000000000000.1', NOTIFICATION_SECRET)).status, 200);
  });

  it('an approval the gateway reports after the checkout expired is voided there, not kept while the payment shows canceled', async () => {
    const checkout = (await api.request('/v1/checkouts', { key: keys.sk_live, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Tea Club, first box' } })).body;
    const pay = await postPay(checkout.url, { name: 'Nimal Perera', email: 'nimal@example.com' });
    assert.equal(pay.status, 303, pay.text);
    await api.workflows.settle();
    // A gateway whose page kept taking the card past the session's timeout.
    for (const session of simulator.state.sessions.values()) if (session.orderId === `${checkout.payment.id}.1`) session.expiresAt = null;
    await api.clock.advance(45 * 60_000);
    await api.workflows.settle();
    const closed = (await api.request(`/v1/checkouts/${checkout.id}`, { key: keys.sk_live })).body;
    assert.deepEqual([closed.status, closed.payment.status], ['expired', 'canceled']);
    await enterCard(api, pay.location!, { number: '4111111111111111', expiry: '01/39', cvv: '100' });
    assert.equal((await notify(`/processor-notifications/${accountId}/live`, `${checkout.payment.id}.1`, NOTIFICATION_SECRET)).status, 200);
    await api.workflows.settle();
    const order = simulator.state.orders.get(`${checkout.payment.id}.1`)!;
    assert.deepEqual(order.transactions.map((t) => [t.type, t.gatewayCode]), [['PAYMENT', 'APPROVED'], ['VOID_PAYMENT', 'APPROVED']], 'the late approval was voided');
    assert.equal(await status(checkout.payment.id), 'canceled');
  });

  it('a saved-card charge the gateway answered UNKNOWN is asked about at once on a notification', async () => {
    const checkout = (await api.request('/v1/checkouts', { key: keys.sk_live, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Tea Club, first box', saveCard: true } })).body;
    await payAtProcessor(api, checkout.url, { number: '4111111111111111', expiry: '01/39', cvv: '100' }, { name: 'Sita Silva', email: 'sita@example.com', saveCard: 'yes' });
    await api.clock.advance(60_000);
    await api.workflows.settle();
    const [card] = (await api.request('/v1/cards?customerEmail=sita%40example.com', { key: keys.sk_live })).body.data;
    simulator.switches.unknownFirst = true;
    const charged = (await api.request(`/v1/cards/${card.id}/charge`, { key: keys.sk_live, idempotencyKey: ik(), body: { amountCents: 200000, description: 'Tea Club, second box' } })).body;
    simulator.switches.unknownFirst = false;
    assert.equal(charged.status, 'processing');
    // The charge's workflow asks 5 s on (still unknown), then 10 s after that; the gateway knows at 10 s.
    await api.clock.advance(10_000);
    await api.workflows.settle();
    assert.equal(await status(charged.id), 'processing');
    assert.equal((await notify(`/processor-notifications/${accountId}/live`, `${charged.id}.1`, NOTIFICATION_SECRET)).status, 200);
    assert.equal(await status(charged.id), 'succeeded');
    const events = (await api.knex('events').where({ type: 'payment.succeeded' })).filter((e) => e.data.id === charged.id);
    await api.clock.advance(10_000);
    await api.workflows.settle();
    assert.equal((await api.knex('events').where({ type: 'payment.succeeded' })).filter((e) => e.data.id === charged.id).length, events.length, 'recorded once');
    assert.equal(events.length, 1);
  });
});
