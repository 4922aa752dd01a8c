// The checkout lifetime over the real service in virtual time, on either engine (one spec file
// each); every scenario's history is replayed on Temporal's Core.
import assert from 'node:assert/strict';
import { createResumers } from '../../workers/resumers';
import { skipUnlessInstalled, startApiWithMerchant, ik, type EngineKind, type TestApi } from '../support/api';
import { ahead, assertInstant, by } from '../support/instants';
import type { MerchantKeys } from '../../db/merchants';
import { get, payAtProcessor, postForm, postPay } from './hosted-flow';

import { OUTCOME_POLL_MS } from '../../domain/checkout-rules';
import { paymentAttemptedSignal } from '../../workflows/checkout-lifetime';

const MINUTE = 60_000;
const APPROVED = { number: '5123450000000008', expiry: '01/39', cvv: '100' };
const DETAILS = { name: 'Nimal Perera', email: 'nimal@example.com', phone: '077 123 4567' };

export function describeCheckoutLifetime(engine: EngineKind): void {
  describe(`checkout lifetime (${engine})`, () => {
    let api: TestApi;
    let keys: MerchantKeys;

    before(async function () {
      skipUnlessInstalled(this, engine);
      ({ api, keys } = await startApiWithMerchant({ engine }));
    });
    after(() => api?.close());

    const open = async (body: Record<string, unknown> = {}) =>
      (await api.request('/v1/checkouts', { key: keys.sk_test, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Tea', ...body } })).body;
    const fetchCheckout = async (id: string) => (await api.request(`/v1/checkouts/${id}`, { key: keys.sk_test })).body;
    const events = async (type: string) => api.knex('events').where({ type }).orderBy('id');
    const replay = (id: string) => api.workflows.replay(`checkout/${id}`);
    /** To the checkout's expiry, and on until what fell due then has happened. */
    const expire = (c: { expiresAt: string }) => api.clock.set(by(api.clock, c.expiresAt));
    // Needs exact control of virtual time (a signal and a timer in one activation): embedded only.
    const embeddedOnly = engine === 'embedded' ? it : it.skip;

    it('expires at 30:00, not before: checkout expired, payment canceled, checkout.expired, pages answer expired', async () => {
      const c = await open();
      assert.equal(Date.parse(c.expiresAt) - Date.parse(c.createdAt), 30 * MINUTE);
      await api.clock.set(ahead(api.clock, Date.parse(c.expiresAt) - 1));
      assert.equal((await fetchCheckout(c.id)).status, 'open');
      assert.equal((await get(c.url)).status, 200);
      await expire(c);
      const after = await fetchCheckout(c.id);
      assert.equal(after.status, 'expired');
      assert.equal(after.payment.status, 'canceled');
      const expired = (await events('checkout.expired')).filter((e: any) => e.data.id === c.id);
      assert.equal(expired.length, 1);
      assert.deepEqual(expired[0].data, after);
      assertInstant(api.clock, expired[0].created_at, c.expiresAt, 'checkout.expired is recorded at the expiry');
      const page = await get(c.url);
      assert.equal(page.status, 409);
      assert.match(page.text, /data-reason="expired"/);
      const pay = await postForm(`${c.url}/pay`, DETAILS);
      assert.equal(pay.status, 409);
      assert.match(pay.text, /data-reason="expired"/);
      await replay(c.id);
    });

    it('paid at 29:59 completes, emits payment.succeeded with the full payment, and never expires', async () => {
      const c = await open({ successUrl: 'https://shop.example/thanks' });
      await api.clock.set(ahead(api.clock, Date.parse(c.expiresAt) - 1000));
      const paidFrom = api.clock.now();
      const back = await payAtProcessor(api, c.url, APPROVED, DETAILS);
      const landed = await get(back);
      assert.equal(landed.status, 303);
      assert.equal(landed.location, 'https://shop.example/thanks');
      const done = await fetchCheckout(c.id);
      assert.equal(done.status, 'completed');
      const p = done.payment;
      assert.equal(p.status, 'succeeded');
      assert.deepEqual(p.card, { scheme: 'mastercard', last4: '0008' });
      // starter: 3.30 % of Rs. 3,500.00.
      assert.equal(p.feeCents, 11550);
      assert.equal(p.netCents, 338450);
      assertInstant(api.clock, p.succeededAt, paidFrom, 'paid as the customer came back');
      assert.deepEqual(p.customer, { name: 'Nimal Perera', email: 'nimal@example.com', phone: '+94771234567' });
      const succeeded = (await events('payment.succeeded')).filter((e: any) => e.data.id === p.id);
      assert.equal(succeeded.length, 1);
      assert.deepEqual(succeeded[0].data, p);
      await api.clock.advance(5 * MINUTE);
      assert.equal((await fetchCheckout(c.id)).status, 'completed');
      assert.equal((await events('checkout.expired')).filter((e: any) => e.data.id === c.id).length, 0);
      // A paid checkout cannot be paid again; its page is the receipt.
      const again = await postForm(`${c.url}/pay`, {});
      assert.equal(again.status, 409);
      assert.match(again.text, /data-reason="not_open"/);
      assert.match((await get(c.url)).text, /Rs\. 3,500\.00/);
      await replay(c.id);
    });

    embeddedOnly('a payment signal and the expiry in the same instant: the authorised payment completes the checkout', async () => {
      const c = await open();
      // Handed over 30 s before the expiry: the workflow's next question to the processor would
      // come after it, so the customer's return and the expiry meet at 30:00.
      await api.clock.advance(29 * MINUTE + 30_000);
      const back = await payAtProcessor(api, c.url, APPROVED, DETAILS);
      const attempt = Number(new URL(back).searchParams.get('attempt'));
      await api.clock.advance(30_000 - 1);
      // The signal and the timer land in one activation at 30:00 (signals are handled first).
      const signalled = api.engine.signal(`checkout/${c.id}`, paymentAttemptedSignal.name, [attempt]);
      api.clock.virtual.moveTo(api.clock.now().getTime() + 1);
      await signalled;
      await api.engine.runUntilIdle();
      const done = await fetchCheckout(c.id);
      assert.equal(done.status, 'completed');
      assert.equal(done.payment.status, 'succeeded');
      assert.equal(done.payment.succeededAt, c.expiresAt);
      const history = api.engine.exportHistory(`checkout/${c.id}`);
      const firedAt = history.events.find((e) => e.timerFiredEventAttributes)?.eventTime;
      const signals = history.events.filter((e) => e.workflowExecutionSignaledEventAttributes);
      const signalledAt = signals[signals.length - 1]?.eventTime;
      assert.ok(firedAt && signalledAt);
      assert.equal(String(firedAt.seconds), String(signalledAt.seconds));
      await replay(c.id);
    });

    it('a declined attempt fails the payment (payment.failed) and leaves the checkout open for another card', async () => {
      const c = await open();
      await get(await payAtProcessor(api, c.url, { ...APPROVED, expiry: '05/39' }, DETAILS));
      let now = await fetchCheckout(c.id);
      assert.equal(now.status, 'open');
      assert.equal(now.payment.status, 'failed');
      assert.equal(now.payment.failureMessage, 'The card was declined by its bank.');
      const failed = (await events('payment.failed')).filter((e: any) => e.data.id === now.payment.id);
      assert.deepEqual(failed.map((e: any) => e.data), [now.payment]);
      assert.match((await get(c.url)).text, /role="alert">The payment did not go through: the card was declined by its bank/);
      // Another try, customer details already kept.
      await get(await payAtProcessor(api, c.url, { number: '378282246310005', expiry: '01/39', cvv: '1000' }));
      now = await fetchCheckout(c.id);
      assert.equal(now.status, 'completed');
      assert.equal(now.payment.status, 'succeeded');
      assert.equal(now.payment.failureMessage, null);
      assert.deepEqual(now.payment.card, { scheme: 'amex', last4: '0005' });
      await replay(c.id);
    });

    it('an expired card (04/27) and a failed 3-D Secure fail the payment with their messages', async () => {
      const a = await open();
      await get(await payAtProcessor(api, a.url, { ...APPROVED, expiry: '04/27' }, DETAILS));
      assert.equal((await fetchCheckout(a.id)).payment.failureMessage, 'The card has expired.');
      const b = await open();
      await get(await payAtProcessor(api, b.url, { ...APPROVED, threeDs: 'fail' }, DETAILS));
      const failed = (await fetchCheckout(b.id)).payment;
      assert.equal(failed.status, 'failed');
      assert.equal(failed.failureMessage, '3-D Secure authentication failed.');
      assert.deepEqual(failed.card, { scheme: 'mastercard', last4: '0008' });
      // At expiry a failed payment is canceled with its checkout.
      await expire(b);
      assert.equal((await fetchCheckout(b.id)).payment.status, 'canceled');
      await replay(b.id);
    });

    it('a customer who never comes back from an approved 3-D Secure is paid a minute later, not at expiry', async () => {
      const c = await open();
      const handedOver = api.clock.now().getTime();
      const pay = await postPay(c.url, DETAILS);
      // The workflow asks at once (still pending: the customer is on the card page)...
      await api.workflows.settle();
      const session = new URL(pay.location as string);
      const card = await postForm(`${session.origin}${session.pathname}/card${session.search}`, APPROVED);
      assert.equal((await postForm(new URL(card.location as string, api.url).toString(), { result: 'pass' })).status, 303);
      // ...and again a minute later, when the processor has approved; the customer never returned.
      await api.clock.set(ahead(api.clock, handedOver + OUTCOME_POLL_MS - 1));
      assert.equal((await fetchCheckout(c.id)).payment.status, 'processing');
      await api.clock.set(by(api.clock, handedOver + OUTCOME_POLL_MS));
      const done = await fetchCheckout(c.id);
      assert.equal(done.status, 'completed');
      assert.equal(done.payment.status, 'succeeded');
      assertInstant(api.clock, done.payment.succeededAt, handedOver + OUTCOME_POLL_MS, 'settled when the workflow asked');
      await replay(c.id);
    });

    it('an attempt left with the processor across a restart is asked about at once by the resumed workflow', async () => {
      const c = await open();
      const pay = await postPay(c.url, DETAILS);
      const session = new URL(pay.location as string);
      // Left at 3-D Secure: with the processor until the customer answers, whatever the workflow
      // asks meanwhile (after the customer's answer, a workflow quick to ask would close it first).
      await postForm(`${session.origin}${session.pathname}/card${session.search}`, APPROVED);
      const [start] = (await createResumers({ db: api.knex, clock: api.clock })[0]!()).filter((s) => s.workflowId === `checkout/${c.id}`);
      assert.deepEqual(start?.args, [{ checkoutId: c.id, expiresAt: c.expiresAt, attemptInFlight: 1 }]);
    });

    it('an unfinished processor session is closed at expiry: a late 3-D Secure cannot charge', async () => {
      const c = await open();
      const pay = await postPay(c.url, DETAILS);
      const session = new URL(pay.location as string);
      const card = await postForm(`${session.origin}${session.pathname}/card${session.search}`, APPROVED);
      await expire(c);
      const late = await postForm(new URL(card.location as string, api.url).toString(), { result: 'pass' });
      assert.equal(late.status, 409);
      const expired = await fetchCheckout(c.id);
      assert.equal(expired.status, 'expired');
      assert.equal(expired.payment.status, 'canceled');
    });

    it('the boot-time resumer restarts every open checkout with its expiresAt', async () => {
      const c = await open();
      const starts = (await createResumers({ db: api.knex, clock: api.clock })[0]!()).filter((s) => s.workflowId === `checkout/${c.id}`);
      const accountId = (await api.knex('checkouts').where({ id: c.id }).first()).account_id;
      assert.deepEqual(starts, [{ workflowType: 'checkoutLifetime', workflowId: `checkout/${c.id}`, args: [{ checkoutId: c.id, expiresAt: c.expiresAt }], accountId, mode: 'test' }]);
    });
  });
}
