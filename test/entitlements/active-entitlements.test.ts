// A customer's active entitlements on test clocks, as a merchant's app sees them: gained with a
// subscription (or its trial), kept through plain renewals and while a renewal is in dunning,
// lost when the subscription is canceled, ends at its period's end, pauses at a trial's end or
// goes unpaid at the ladder's end (back when its invoice is paid on its page or it is resumed),
// and changed by a change of items, of a product's features, or a feature archived.
// entitlements.active_entitlement_summary.updated is sent once per change of the set, at the
// customer's time, and never for a change that leaves the set as it was.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { CARD_NUMBER, DETAILS, payAndKeep } from '../cards/card-flow';
import { get, payAtProcessor } from '../checkouts/hosted-flow';
import { payerCheckout } from '../payment-links/link-flow';
import { at, billingFlow, DAY } from '../invoices/billing-flow';
import { startApi, type TestApi } from '../support/api';

const SUMMARY = 'entitlements.active_entitlement_summary.updated';

describe('active entitlements on test clocks', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => (api = await startApi({ startAt: new Date('2027-01-05T04:30:00.000Z') })));
  after(() => api.close());
  // Each test a merchant of its own: the same lookup keys in each.
  beforeEach(async () => ({ keys } = await api.merchant({ activate: true })));

  const { post, read, advance, customerWithCard, monthly, invoicesOf } = billingFlow(() => ({ api, keys }));

  /** A monthly price (Rs. 1,500.00 unless told) of a new product granting the features of `lookupKeys` (made when new). */
  const featured = async (lookupKeys: string[], unitAmountCents = 150000) => {
    const price = await post('/v1/prices', { product: { name: `Plan with ${lookupKeys.join(', ')}` }, unitAmountCents, interval: 'month' });
    for (const lookupKey of lookupKeys) await post(`/v1/products/${price.product.id}/features`, { featureId: await featureId(lookupKey) });
    return price;
  };
  const featureId = async (lookupKey: string): Promise<string> => {
    const existing = (await read('/v1/entitlements/features?limit=100')).data.find((f: { lookupKey: string }) => f.lookupKey === lookupKey);
    return existing?.id ?? (await post('/v1/entitlements/features', { name: lookupKey, lookupKey })).id;
  };
  /** What the customer may use, as the app asks: the lookup keys. */
  const entitled = async (customerId: string) => (await read(`/v1/entitlements/active_entitlements?customerId=${customerId}`)).data.map((e: { lookupKey: string }) => e.lookupKey);
  /** The summaries sent about the customer, in order: [lookupKeys, when]. */
  const summaries = async (customerId: string) =>
    (await api.knex('events').where({ type: SUMMARY }).whereRaw("data->>'customerId' = ?", [customerId]).orderBy('id')).map((e: any) => [e.data.lookupKeys, e.created_at.toISOString()]);

  it('gained with a subscription; a plain renewal sends nothing and does not touch the summary; lost when canceled', async () => {
    const start = '2027-01-05T04:30:00.000Z';
    const { clock, customer } = await customerWithCard('renews@example.com', start, '01/39');
    const price = await featured(['api-calls', 'sso']);
    assert.deepEqual(await entitled(customer.id), []);
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id });
    await api.workflows.settle();
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'active');
    const answer = await read(`/v1/entitlements/active_entitlements?customerId=${customer.id}`);
    const features = (await read('/v1/entitlements/features')).data;
    const idOf = (key: string) => features.find((f: { lookupKey: string }) => f.lookupKey === key).id;
    assert.deepEqual(answer, {
      object: 'list',
      data: [
        { object: 'active_entitlement', featureId: idOf('api-calls'), lookupKey: 'api-calls' },
        { object: 'active_entitlement', featureId: idOf('sso'), lookupKey: 'sso' },
      ],
      hasMore: false,
      nextCursor: null,
    });
    assert.deepEqual(await summaries(customer.id), [[['api-calls', 'sso'], start]]);

    // Two renewals, paid, while another connection holds the customer's summary: a renewal that
    // changes neither status nor items must not wait for it (it does not refresh the summary).
    const holder = await api.knex.transaction();
    try {
      assert.equal((await holder('entitlement_summaries').where({ customer_id: customer.id }).forUpdate()).length, 1);
      await advance(clock.id, '2027-03-06T00:00:00.000Z');
    } finally {
      await holder.rollback();
    }
    assert.deepEqual((await invoicesOf(subscription.id)).map((i: any) => [i.billingReason, i.status]), [
      ['subscription_create', 'paid'],
      ['subscription_cycle', 'paid'],
      ['subscription_cycle', 'paid'],
    ]);
    assert.deepEqual(await entitled(customer.id), ['api-calls', 'sso']);
    assert.equal((await summaries(customer.id)).length, 1, 'no summary for a renewal');

    await post(`/v1/subscriptions/${subscription.id}/cancel`);
    assert.deepEqual(await entitled(customer.id), []);
    assert.deepEqual(await summaries(customer.id), [
      [['api-calls', 'sso'], start],
      [[], '2027-03-06T00:00:00.000Z'],
    ]);
  });

  it('kept while the renewal is in dunning (past_due), lost when the ladder ends unpaid, back when the customer pays the invoice on its page', async () => {
    const start = '2027-01-10T04:30:00.000Z';
    const { clock, customer } = await customerWithCard('ladder@example.com', start, '01/39');
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await featured(['reports'])).id });
    await api.workflows.settle();
    await payAndKeep(api, keys, { email: 'ladder@example.com', expiry: '07/39' });
    const renewal = '2027-02-10T04:30:00.000Z';
    await advance(clock.id, at(renewal, 2 * DAY));
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'past_due');
    assert.deepEqual(await entitled(customer.id), ['reports']);
    await advance(clock.id, at(renewal, 15 * DAY));
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'unpaid');
    assert.deepEqual(await entitled(customer.id), []);
    const [, invoice] = await invoicesOf(subscription.id);
    const back = await payAtProcessor(api, await payerCheckout(api, invoice.hostedInvoiceUrl), { number: CARD_NUMBER, expiry: '02/39', cvv: '100' }, { ...DETAILS, email: 'ladder@example.com' });
    await get(back);
    await api.workflows.settle();
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'active');
    assert.deepEqual(await entitled(customer.id), ['reports']);
    assert.deepEqual(await summaries(customer.id), [
      [['reports'], start],
      [[], at(renewal, 14 * DAY)],
      [['reports'], at(renewal, 15 * DAY)],
    ]);
  });

  it('lost when the ladder ends canceled (the account\'s choice), and when the customer\'s test clock is deleted', async () => {
    ({ keys } = await api.merchant({ activate: true, changes: { dunningEnd: 'canceled' } }));
    const start = '2027-01-12T04:30:00.000Z';
    const price = await featured(['reports']);
    const { clock, customer } = await customerWithCard('ladder-cancels@example.com', start, '01/39');
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id });
    await api.workflows.settle();
    await payAndKeep(api, keys, { email: 'ladder-cancels@example.com', expiry: '07/39' });
    const renewal = '2027-02-12T04:30:00.000Z';
    await advance(clock.id, at(renewal, 15 * DAY));
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'canceled');
    assert.deepEqual(await summaries(customer.id), [[['reports'], start], [[], at(renewal, 14 * DAY)]]);

    const other = await customerWithCard('clock-deleted@example.com', start, '01/39');
    await post('/v1/subscriptions', { customerId: other.customer.id, priceId: price.id });
    await api.workflows.settle();
    assert.deepEqual(await entitled(other.customer.id), ['reports']);
    const deleted = await api.request(`/v1/test_helpers/test_clocks/${other.clock.id}`, { method: 'DELETE', key: keys.sk_test });
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(await entitled(other.customer.id), []);
    assert.deepEqual(await summaries(other.customer.id), [[['reports'], start], [[], start]]);
  });

  it('a trial entitles; a trial ending without a card pauses it (lost); resumed with a card (back); ended at the period\'s end (lost)', async () => {
    const start = '2027-01-05T04:30:00.000Z';
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: start });
    const customer = await post('/v1/customers', { email: 'trial@example.com', name: 'Ruwan Jayasuriya', testClockId: clock.id });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await featured(['exports'])).id, trialDays: 7, trialEndBehavior: 'pause' });
    assert.equal(subscription.status, 'trialing');
    assert.deepEqual(await entitled(customer.id), ['exports']);
    await advance(clock.id, at(start, 7 * DAY));
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'paused');
    assert.deepEqual(await entitled(customer.id), []);
    await payAndKeep(api, keys, { email: 'trial@example.com', expiry: '01/39' });
    await post(`/v1/subscriptions/${subscription.id}/resume`);
    await api.workflows.settle();
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'active');
    assert.deepEqual(await entitled(customer.id), ['exports']);
    const resumed = await read(`/v1/subscriptions/${subscription.id}`);
    await post(`/v1/subscriptions/${subscription.id}`, { cancelAtPeriodEnd: true });
    assert.deepEqual(await entitled(customer.id), ['exports'], 'until the period ends');
    await advance(clock.id, at(resumed.currentPeriodEnd, DAY));
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'canceled');
    assert.deepEqual(await entitled(customer.id), []);
    assert.deepEqual(await summaries(customer.id), [
      [['exports'], start],
      [[], at(start, 7 * DAY)],
      [['exports'], at(start, 7 * DAY)],
      [[], resumed.currentPeriodEnd],
    ]);
  });

  it('a change of items changes them; two subscriptions grant the union, and one canceled leaves the other\'s', async () => {
    const start = '2027-01-05T04:30:00.000Z';
    const { customer } = await customerWithCard('changes@example.com', start, '01/39');
    const plain = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    await api.workflows.settle();
    assert.deepEqual([await entitled(customer.id), await summaries(customer.id)], [[], []], 'a subscription granting nothing sends nothing');
    await post(`/v1/subscriptions/${plain.id}`, { priceId: (await featured(['api-calls'])).id });
    assert.deepEqual(await entitled(customer.id), ['api-calls']);
    const second = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await featured(['api-calls', 'sso'])).id });
    await api.workflows.settle();
    assert.deepEqual(await entitled(customer.id), ['api-calls', 'sso'], 'each lookup key once');
    await post(`/v1/subscriptions/${second.id}/cancel`);
    assert.deepEqual(await entitled(customer.id), ['api-calls']);
    assert.deepEqual((await summaries(customer.id)).map(([keys]) => keys), [['api-calls'], ['api-calls', 'sso'], ['api-calls']]);
  });

  it('a change waiting for its invoice (pending_if_incomplete) entitles nothing until that invoice is paid', async () => {
    const start = '2027-01-05T04:30:00.000Z';
    const { customer } = await customerWithCard('pending@example.com', start, '01/39');
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    await api.workflows.settle();
    await payAndKeep(api, keys, { email: 'pending@example.com', expiry: '07/39' });
    const waiting = await post(`/v1/subscriptions/${subscription.id}`, { priceId: (await featured(['exports'], 300000)).id, prorationBehavior: 'always_invoice', paymentBehavior: 'pending_if_incomplete' });
    await api.workflows.settle();
    assert.notEqual((await read(`/v1/subscriptions/${subscription.id}`)).pendingUpdate, null, 'declined: the change waits');
    assert.deepEqual([await entitled(customer.id), await summaries(customer.id)], [[], []]);
    const invoice = await read(`/v1/invoices/${waiting.latestInvoiceId}`);
    const back = await payAtProcessor(api, await payerCheckout(api, invoice.hostedInvoiceUrl), { number: CARD_NUMBER, expiry: '02/39', cvv: '100' }, { ...DETAILS, email: 'pending@example.com' });
    await get(back);
    await api.workflows.settle();
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).pendingUpdate, null, 'paid: the change applied');
    assert.deepEqual(await entitled(customer.id), ['exports']);
    assert.deepEqual((await summaries(customer.id)).map(([keys]) => keys), [['exports']]);
  });

  it('a product\'s features attached and detached, and a feature archived and brought back, change its subscribers\' entitlements, not those of an ended subscription', async () => {
    const start = '2027-01-05T04:30:00.000Z';
    const price = await featured(['api-calls']);
    const subscribe = async (email: string) => {
      const { customer } = await customerWithCard(email, start, '01/39');
      const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id });
      await api.workflows.settle();
      return { customer, subscription };
    };
    const [kept, left] = [await subscribe('kept@example.com'), await subscribe('left@example.com')];
    // Granted by another product too: detaching it from this one changes nothing for this customer.
    const both = await subscribe('both@example.com');
    await post('/v1/subscriptions', { customerId: both.customer.id, priceId: (await featured(['sso'])).id });
    await api.workflows.settle();
    await post(`/v1/subscriptions/${left.subscription.id}/cancel`);

    await post(`/v1/products/${price.product.id}/features`, { featureId: await featureId('sso') });
    assert.deepEqual(await entitled(kept.customer.id), ['api-calls', 'sso']);
    assert.deepEqual(await entitled(left.customer.id), []);
    const detached = await api.request(`/v1/products/${price.product.id}/features/${await featureId('sso')}`, { method: 'DELETE', key: keys.sk_test, idempotencyKey: `detach-${Date.now()}` });
    assert.equal(detached.status, 200, detached.text);
    assert.deepEqual(await entitled(kept.customer.id), ['api-calls']);
    assert.deepEqual(await entitled(both.customer.id), ['api-calls', 'sso']);
    // Archived, a feature entitles no one, through any product; brought back, it does again.
    const ssoId = await featureId('sso');
    const archive = (active: boolean) => post(`/v1/entitlements/features/${ssoId}`, { active });
    await archive(false);
    assert.deepEqual([await entitled(kept.customer.id), await entitled(both.customer.id)], [['api-calls'], ['api-calls']]);
    await archive(true);
    assert.deepEqual(await entitled(both.customer.id), ['api-calls', 'sso']);
    // Each customer's time: their own test clock's.
    assert.deepEqual(await summaries(kept.customer.id), [[['api-calls'], start], [['api-calls', 'sso'], start], [['api-calls'], start]]);
    assert.deepEqual((await summaries(left.customer.id)).map(([keys]) => keys), [['api-calls'], []]);
    assert.deepEqual((await summaries(both.customer.id)).map(([keys]) => keys), [['api-calls'], ['api-calls', 'sso'], ['api-calls'], ['api-calls', 'sso']]);
  });

  it('two subscriptions of one customer canceled at once: the summary ends empty, each change told once', async () => {
    const start = '2027-01-05T04:30:00.000Z';
    const [first, second] = [await featured(['api-calls']), await featured(['sso'])];
    for (let round = 0; round < 4; round++) {
      const { customer } = await customerWithCard(`both-${round}@example.com`, start, '01/39');
      const subscriptions = [await post('/v1/subscriptions', { customerId: customer.id, priceId: first.id }), await post('/v1/subscriptions', { customerId: customer.id, priceId: second.id })];
      await api.workflows.settle();
      assert.deepEqual(await entitled(customer.id), ['api-calls', 'sso']);
      await Promise.all(subscriptions.map((subscription) => post(`/v1/subscriptions/${subscription.id}/cancel`)));
      assert.deepEqual(await entitled(customer.id), []);
      // Whichever ended first, the other saw it: one key lost, then the other.
      const told = (await summaries(customer.id)).map(([keys]) => keys);
      assert.equal(told.length, 4, JSON.stringify(told));
      assert.deepEqual(told.slice(0, 2), [['api-calls'], ['api-calls', 'sso']]);
      assert.equal(told[2].length, 1);
      assert.deepEqual(told[3], []);
      assert.deepEqual((await api.knex('entitlement_summaries').where({ customer_id: customer.id }).first()).lookup_keys, []);
    }
  });
});
