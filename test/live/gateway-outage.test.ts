// Live payments while the bank's gateway does not answer (the simulator's 5xx switch). Pay during
// an outage keeps the attempt and says to press Pay again. A payment the gateway cannot tell about
// when its checkout's 30 minutes are up (UNKNOWN, then 5xx): the checkout is not expired and its
// payment not canceled, since the bank may yet approve it; closing is asked again with backoff
// until the gateway knows (across a restart too), and the payment gets the gateway's outcome once.
// Likewise while the gateway's page may still take the card after the checkout's 30 minutes (Pay
// pressed in the last minute opens a session that lives a minute): an approval made there completes it.
import assert from 'node:assert/strict';
import type { GatewaySimulator } from '../../processor/gateway-simulator';
import { ik, type TestApi } from '../support/api';
import { say } from '../../api/pages/messages';
import { escapeHtml } from '../../web/html';
import { enterCard, get, payAtProcessor, postPay } from '../checkouts/hosted-flow';
import type { MerchantKeys } from '../../db/merchants';
import { startLiveApi, stopLive } from './live-flow';

const SECOND_MS = 1_000;
const MINUTE_MS = 60 * SECOND_MS;

describe('live payments while the gateway does not answer', function () {
  this.timeout(120_000);
  let api: TestApi;
  let simulator: GatewaySimulator;
  let keys: MerchantKeys;

  before(async () => {
    // No notification is accepted: only the service's own questions find the outcome.
    ({ api, simulator, keys } = await startLiveApi({ notifying: false }));
  });
  after(() => stopLive({ api, simulator }));

  it('Pay while the gateway does not answer: 503, the page says to press Pay again, which goes on with the same attempt', async () => {
    const checkout = (await api.request('/v1/checkouts', { key: keys.sk_live, idempotencyKey: ik(), body: { amountCents: 150000, description: 'Tea sampler' } })).body;
    simulator.switches.fail5xx = 1;
    const outage = await postPay(checkout.url, { name: 'Nimal Perera', email: 'nimal@example.com' });
    assert.equal(outage.status, 503, outage.text);
    assert.ok(outage.text.includes(escapeHtml(say('en', 'processing'))), outage.text);
    const again = await postPay(checkout.url, {});
    assert.equal(again.status, 303, again.text);
    // Pay told the checkout's workflow, which asks the gateway at once: let it hear "pending" first.
    await api.workflows.settle();
    // Back from the gateway's page, as the browser is: the return page has the outcome applied.
    await get(await enterCard(api, again.location!, { number: '4111111111111111', expiry: '01/39', cvv: '100' }));
    assert.equal((await api.request(`/v1/payments/${checkout.payment.id}`, { key: keys.sk_live })).body.status, 'succeeded');
    assert.equal((await api.knex('payments').where({ id: checkout.payment.id }).first()).attempts, 1, 'the same attempt');
  });

  it('stays open and processing while the gateway cannot answer, then completes with the gateway\'s approval', async () => {
    const checkout = (await api.request('/v1/checkouts', { key: keys.sk_live, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Tea Club, first box' } })).body;
    await payAtProcessor(api, checkout.url, { number: '4111111111111111', expiry: '05/37', cvv: '100' }, { name: 'Nimal Perera', email: 'nimal@example.com' });
    await api.workflows.settle();
    // From here the gateway fails every request (a long outage), past the checkout's 30 minutes.
    simulator.switches.fail5xx = 1_000_000;
    await api.clock.advance(31 * MINUTE_MS);
    await api.workflows.settle();
    const during = (await api.request(`/v1/checkouts/${checkout.id}`, { key: keys.sk_live })).body;
    assert.deepEqual([during.status, during.payment.status], ['open', 'processing']);
    const events = async () => (await api.knex('events').where({ mode: 'live' }).whereIn('type', ['checkout.expired', 'payment.succeeded', 'payment.failed'])).filter((e) => [checkout.id, checkout.payment.id].includes(e.data.id)).map((e) => e.type);
    assert.deepEqual(await events(), []);
    // The gateway is back: the next question (within the backoff's doubling) finds the approval.
    simulator.switches.fail5xx = 0;
    await api.clock.advance(10 * MINUTE_MS);
    await api.workflows.settle();
    const after = (await api.request(`/v1/checkouts/${checkout.id}`, { key: keys.sk_live })).body;
    assert.deepEqual([after.status, after.payment.status], ['completed', 'succeeded']);
    assert.deepEqual(await events(), ['payment.succeeded']);
  });

  it('a refund asked for while the gateway does not answer is made once it answers again, not left pending forever', async () => {
    const checkout = (await api.request('/v1/checkouts', { key: keys.sk_live, idempotencyKey: ik(), body: { amountCents: 200000, description: 'Tea sampler' } })).body;
    await get(await payAtProcessor(api, checkout.url, { number: '4111111111111111', expiry: '01/39', cvv: '100' }, { name: 'Nimal Perera', email: 'nimal@example.com' }));
    await api.workflows.settle();
    assert.equal((await api.request(`/v1/payments/${checkout.payment.id}`, { key: keys.sk_live })).body.status, 'succeeded');
    // The refund's request meets a 5xx: the gateway makes nothing.
    simulator.switches.fail5xx = 1;
    const refund = await api.request('/v1/refunds', { key: keys.sk_live, idempotencyKey: ik(), body: { paymentId: checkout.payment.id, amountCents: 50000 } });
    assert.equal(refund.status, 201, refund.text);
    await api.workflows.settle();
    // A weekend at most lies between: four days reach the next working day whatever today is.
    await api.clock.advance(4 * 24 * 60 * MINUTE_MS);
    await api.workflows.settle();
    const made = simulator.state.orders.get(`${checkout.payment.id}.1`)!.transactions.filter((t) => t.type === 'REFUND');
    assert.deepEqual(made.map((t) => [t.id, t.amountCents]), [[refund.body.id, 50000]], 'the gateway made the refund, once');
    assert.equal((await api.request(`/v1/refunds/${refund.body.id}`, { key: keys.sk_live })).body.status, 'succeeded');
  });

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

  it('across a restart: the next boot resumes the open checkout\'s questions, and the payment resolves from the gateway once', async () => {
    const checkout = (await api.request('/v1/checkouts', { key: keys.sk_live, idempotencyKey: ik(), body: { amountCents: 250000, description: 'Tea Club, gift box' } })).body;
    await payAtProcessor(api, checkout.url, { number: '4111111111111111', expiry: '05/37', cvv: '100' }, { name: 'Nimal Perera', email: 'nimal@example.com' });
    await api.workflows.settle();
    simulator.switches.fail5xx = 1_000_000;
    await api.clock.advance(31 * MINUTE_MS);
    await api.workflows.settle();
    // The gateway answers again; another process boots on the same database, as after a SIGKILL
    // (this one's workflow sleeps on, as a dead one's would), and asks at once.
    simulator.switches.fail5xx = 0;
    const restarted = await api.sibling();
    try {
      await restarted.workflows.settle();
      const after = (await restarted.request(`/v1/checkouts/${checkout.id}`, { key: keys.sk_live })).body;
      assert.deepEqual([after.status, after.payment.status], ['completed', 'succeeded']);
      await restarted.workflows.replay(`checkout/${checkout.id}`);
      // The first process's workflow wakes too: the payment is decided, nothing is recorded again.
      await api.clock.advance(2 * 60 * MINUTE_MS);
      await api.workflows.settle();
      const events = (await api.knex('events').where({ mode: 'live' }).whereIn('type', ['checkout.expired', 'payment.succeeded', 'payment.failed'])).filter((e) => e.data.id === checkout.payment.id || e.data.id === checkout.id);
      assert.deepEqual(events.map((e) => e.type), ['payment.succeeded']);
    } finally {
      await restarted.close();
    }
  });
});
