// A subscription's life beyond plain renewals, on test clocks over HTTP with the cents and times
// written out: a trial that converts (its notice three days before, not earlier; the first period
// charged at its end and anchored there), one that pauses with no card and is resumed once there
// is one, one that invoices the customer and one that cancels; a trial ended early (`trialEnd`
// now) and one moved; `cancelAt` (the last period prorated by the second, ended there); the update
// of the fields that change no price, and every refusal of create and update.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { payAndKeep } from '../cards/card-flow';
import { get, payAtProcessor } from '../checkouts/hosted-flow';
import { payerCheckout } from '../payment-links/link-flow';
import { at, billingFlow, DAY } from '../invoices/billing-flow';

describe('a subscription\'s life on test clocks: trials, pauses, cancelAt and updates', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());
  const { post, read, advance, customerWithCard, monthly, invoicesOf, chargesOf } = billingFlow(() => ({ api, keys }));

  const attempt = (path: string, body: unknown = {}) => api.request(path, { key: keys.sk_test, body, idempotencyKey: ik() });
  const eventsAbout = async (id: string) =>
    (await api.knex('events').whereRaw("data->>'id' = ?", [id]).where('type', 'like', 'customer.subscription.%').orderBy('id').select('type', 'data')).map((e: { type: string; data: { status: string } }) => [e.type, e.data.status]);
  const emailsAbout = async (objectId: string) => (await api.knex('emails').where({ object_id: objectId }).orderBy('id').select('kind', 'created_at')).map((e: { kind: string; created_at: Date }) => [e.kind, e.created_at.toISOString()]);
  const customerOnClock = async (email: string, start: string) => {
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: start });
    return { clock, customer: await post('/v1/customers', { email, testClockId: clock.id }) };
  };

  it('a 14-day trial that converts: trialing, a first invoice for nothing, trial_will_end on day 11 (not day 10), then charged at the trial\'s end and renewed from there', async () => {
    const start = '2027-01-31T04:30:00.000Z';
    const { clock, customer, card } = await customerWithCard('trial@example.com', start, '01/39');
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, trialDays: 14 });
    const trialEnd = at(start, 14 * DAY);
    assert.deepEqual(
      [sub.status, sub.trialStart, sub.trialEnd, sub.currentPeriodStart, sub.currentPeriodEnd, sub.billingCycleAnchor, sub.checkoutUrl],
      ['trialing', start, trialEnd, start, trialEnd, trialEnd, null],
    );
    await api.workflows.settle();
    const [first] = await invoicesOf(sub.id);
    assert.deepEqual([first.status, first.billingReason, first.amountDueCents, first.lines[0].description, first.lines[0].amountCents], ['paid', 'subscription_create', 0, 'Trial period for Pro plan', 0]);
    assert.deepEqual(await chargesOf(first.id), [], 'nothing is charged for a trial');

    await advance(clock.id, at(trialEnd, -3 * DAY - 1000));
    assert.deepEqual(await emailsAbout(sub.id), [], 'no notice before three days ahead');
    await advance(clock.id, at(trialEnd, -3 * DAY));
    assert.deepEqual(await emailsAbout(sub.id), [['trial_will_end', at(trialEnd, -3 * DAY)]]);
    const [notice] = await api.knex('emails').where({ object_id: sub.id, kind: 'trial_will_end' }).select('text');
    assert.match(notice.text, /Rs\. 1,500\.00/, 'the notice says what the first period costs');
    const [upcoming] = await api.knex('events').where({ type: 'invoice.upcoming' }).whereRaw("data->>'subscriptionId' = ?", [sub.id]).select('data');
    assert.deepEqual([upcoming.data.periodStart, upcoming.data.amountDueCents], [trialEnd, 150000], 'invoice.upcoming with the first paid period\'s invoice');

    await advance(clock.id, '2027-03-20T00:00:00.000Z');
    const invoices = await invoicesOf(sub.id);
    assert.deepEqual(
      invoices.map((i: any) => [i.billingReason, i.periodStart, i.periodEnd, i.amountDueCents, i.status]),
      [
        ['subscription_create', start, trialEnd, 0, 'paid'],
        ['subscription_cycle', trialEnd, '2027-03-14T04:30:00.000Z', 150000, 'paid'],
        ['subscription_cycle', '2027-03-14T04:30:00.000Z', '2027-04-14T04:30:00.000Z', 150000, 'paid'],
      ],
    );
    assert.deepEqual((await chargesOf(invoices[1].id)).map((c: any) => [c.status, c.amount_cents]), [['succeeded', 150000]]);
    const now = await read(`/v1/subscriptions/${sub.id}`);
    assert.deepEqual([now.status, now.billingCycleAnchor, now.trialEnd, now.cardId, card.id !== null], ['active', trialEnd, trialEnd, null, true]);
    assert.deepEqual(await eventsAbout(sub.id), [
      ['customer.subscription.created', 'trialing'],
      ['customer.subscription.trial_will_end', 'trialing'],
      ['customer.subscription.updated', 'active'],
      ['customer.subscription.updated', 'active'],
    ]);
  });

  it('a trial ending with no card and trialEndBehavior pause: paused, no invoice; resume refused until a card is kept, then active with a period from now, billed at once', async () => {
    const start = '2027-01-10T04:30:00.000Z';
    const { clock, customer } = await customerOnClock('pause@example.com', start);
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, trialEnd: '2027-01-12T04:30:00.000Z', trialEndBehavior: 'pause' });
    await advance(clock.id, '2027-01-13T04:30:00.000Z');
    const paused = await read(`/v1/subscriptions/${sub.id}`);
    assert.deepEqual([paused.status, paused.cardMissingSince, paused.currentPeriodEnd], ['paused', '2027-01-12T04:30:00.000Z', '2027-01-12T04:30:00.000Z']);
    assert.equal((await invoicesOf(sub.id)).length, 1, 'a pause bills nothing');
    // A trial of two days is noticed at once.
    assert.deepEqual(await emailsAbout(sub.id), [['trial_will_end', start]]);

    await advance(clock.id, '2027-02-20T04:30:00.000Z');
    assert.equal((await read(`/v1/subscriptions/${sub.id}`)).status, 'paused', 'a paused subscription waits for the merchant, not the clock');
    const refused = await attempt(`/v1/subscriptions/${sub.id}/resume`);
    assert.deepEqual([refused.status, refused.body.reason], [409, 'subscription_change_refused']);

    await payAndKeep(api, keys, { email: 'pause@example.com', expiry: '01/39' });
    const withCard = await read(`/v1/subscriptions/${sub.id}`);
    assert.deepEqual([withCard.status, withCard.cardMissingSince], ['paused', null], 'a card on file again: no longer missing, still paused until resumed');
    const resumed = await post(`/v1/subscriptions/${sub.id}/resume`);
    assert.deepEqual([resumed.status, resumed.currentPeriodStart, resumed.currentPeriodEnd, resumed.billingCycleAnchor, resumed.cardMissingSince], ['active', '2027-02-20T04:30:00.000Z', '2027-03-20T04:30:00.000Z', '2027-02-20T04:30:00.000Z', null]);
    await advance(clock.id, '2027-03-21T00:00:00.000Z');
    assert.deepEqual(
      (await invoicesOf(sub.id)).slice(1).map((i: any) => [i.periodStart, i.amountPaidCents, i.status]),
      [
        ['2027-02-20T04:30:00.000Z', 150000, 'paid'],
        ['2027-03-20T04:30:00.000Z', 150000, 'paid'],
      ],
    );
    assert.deepEqual(await eventsAbout(sub.id), [
      ['customer.subscription.created', 'trialing'],
      ['customer.subscription.trial_will_end', 'trialing'],
      ['customer.subscription.updated', 'paused'],
      ['customer.subscription.paused', 'paused'],
      ['customer.subscription.updated', 'paused'],
      ['customer.subscription.updated', 'active'],
      ['customer.subscription.resumed', 'active'],
      ['customer.subscription.updated', 'active'],
    ]);
  });

  it('a trial ending with no card: create_invoice sends the first invoice to pay on its page (due daysUntilDue on); cancel ends the subscription; one canceled at period end ends with its trial', async () => {
    const start = '2027-01-10T04:30:00.000Z';
    const { clock, customer } = await customerOnClock('noc@example.com', start);
    const price = await monthly();
    const invoiced = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, trialDays: 5, daysUntilDue: 7 });
    const canceled = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, trialDays: 5, trialEndBehavior: 'cancel' });
    const lastPeriod = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, trialDays: 5, collectionMethod: 'send_invoice' });
    await post(`/v1/subscriptions/${lastPeriod.id}/cancel`, { atPeriodEnd: true });
    await advance(clock.id, '2027-01-16T04:30:00.000Z');
    const trialEnd = '2027-01-15T04:30:00.000Z';
    const [, sent] = await invoicesOf(invoiced.id);
    assert.deepEqual([sent.status, sent.collectionMethod, sent.amountDueCents, sent.dueDate, sent.attemptCount], ['open', 'send_invoice', 150000, '2027-01-22T04:30:00.000Z', 0]);
    assert.deepEqual(await emailsAbout(sent.id), [['invoice', trialEnd]]);
    const active = await read(`/v1/subscriptions/${invoiced.id}`);
    assert.deepEqual([active.status, active.cardMissingSince, active.collectionMethod], ['active', trialEnd, 'charge_automatically']);
    const ended = await read(`/v1/subscriptions/${canceled.id}`);
    assert.deepEqual([ended.status, ended.endedAt, ended.cancelReason], ['canceled', trialEnd, 'trial_ended_without_card']);
    assert.deepEqual((await emailsAbout(canceled.id)).map(([kind]) => kind), ['trial_will_end', 'subscription_canceled']);
    // The customer pays it on its page and keeps the card: a card is on file again.
    await get(await payAtProcessor(api, await payerCheckout(api, sent.hostedInvoiceUrl), { number: '5123450000000008', expiry: '01/39', cvv: '100' }, { name: 'Nimal Perera', email: 'noc@example.com', saveCard: 'yes' }));
    await api.workflows.settle();
    const withCard = await read(`/v1/subscriptions/${invoiced.id}`);
    assert.deepEqual([withCard.status, withCard.cardMissingSince, (await read(`/v1/invoices/${sent.id}`)).status], ['active', null, 'paid']);
    const trialOnly = await read(`/v1/subscriptions/${lastPeriod.id}`);
    assert.deepEqual([trialOnly.status, trialOnly.endedAt, trialOnly.cancelReason, (await invoicesOf(lastPeriod.id)).length], ['canceled', trialEnd, 'requested_by_merchant', 1], 'canceled at period end while trialing: the trial was its last period');
  });

  it('trialEnd by update: moved later (noticed again three days before the new end), then now (ended at once, the first period billed and charged in the request)', async () => {
    const start = '2027-02-01T04:30:00.000Z';
    const { clock, customer } = await customerWithCard('moved@example.com', start, '01/39');
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, trialDays: 4 });
    await advance(clock.id, '2027-02-02T04:30:00.000Z');
    assert.deepEqual((await emailsAbout(sub.id)).map(([kind]) => kind), ['trial_will_end']);
    const moved = await post(`/v1/subscriptions/${sub.id}`, { trialEnd: '2027-02-20T04:30:00.000Z' });
    assert.deepEqual([moved.status, moved.trialEnd, moved.currentPeriodEnd], ['trialing', '2027-02-20T04:30:00.000Z', '2027-02-20T04:30:00.000Z']);
    await advance(clock.id, '2027-02-17T04:29:00.000Z');
    assert.equal((await emailsAbout(sub.id)).length, 1, 'not noticed again before three days ahead of the new end');
    await advance(clock.id, '2027-02-18T04:30:00.000Z');
    // A trial of four days is noticed on its first day.
    assert.deepEqual(await emailsAbout(sub.id), [['trial_will_end', '2027-02-02T04:30:00.000Z'], ['trial_will_end', '2027-02-17T04:30:00.000Z']]);

    const ended = await post(`/v1/subscriptions/${sub.id}`, { trialEnd: 'now' });
    assert.deepEqual(
      [ended.status, ended.trialEnd, ended.currentPeriodStart, ended.currentPeriodEnd],
      ['active', '2027-02-18T04:30:00.000Z', '2027-02-18T04:30:00.000Z', '2027-03-18T04:30:00.000Z'],
    );
    await api.workflows.settle();
    const [, firstPaid] = await invoicesOf(sub.id);
    assert.deepEqual([firstPaid.periodStart, firstPaid.amountPaidCents, firstPaid.status], ['2027-02-18T04:30:00.000Z', 150000, 'paid']);
    const again = await attempt(`/v1/subscriptions/${sub.id}`, { trialEnd: 'now' });
    assert.deepEqual([again.status, again.body.reason], [409, 'subscription_change_refused']);
    // The workflow moved on with it: the next renewal falls on 18 March.
    await advance(clock.id, '2027-03-19T00:00:00.000Z');
    assert.deepEqual((await invoicesOf(sub.id)).map((i: any) => i.periodStart).slice(1), ['2027-02-18T04:30:00.000Z', '2027-03-18T04:30:00.000Z']);
  });

  it('cancelAt: the last period is billed up to it, prorated by the second, and the subscription ends there', async () => {
    const start = '2027-01-31T04:30:00.000Z';
    const { clock, customer } = await customerWithCard('cancelat@example.com', start, '01/39');
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    const updated = await post(`/v1/subscriptions/${sub.id}`, { cancelAt: '2027-03-15T04:30:00.000Z', cancellationDetails: { feedback: 'too_expensive', comment: 'Budget cut' } });
    assert.deepEqual([updated.cancelAt, updated.cancelAtPeriodEnd, updated.cancellationDetails], ['2027-03-15T04:30:00.000Z', false, { reason: 'cancellation_requested', feedback: 'too_expensive', comment: 'Budget cut' }]);
    await advance(clock.id, '2027-04-30T00:00:00.000Z');
    const invoices = await invoicesOf(sub.id);
    // 28 February to 15 March of 28 February to 31 March: 15 days of 31, 150000 × 15 / 31 = 72580.645...
    assert.deepEqual(
      invoices.map((i: any) => [i.periodStart, i.periodEnd, i.amountDueCents, i.lines[0].proration, i.status]),
      [
        [start, '2027-02-28T04:30:00.000Z', 150000, false, 'paid'],
        ['2027-02-28T04:30:00.000Z', '2027-03-15T04:30:00.000Z', 72581, true, 'paid'],
      ],
    );
    const ended = await read(`/v1/subscriptions/${sub.id}`);
    assert.deepEqual([ended.status, ended.endedAt, ended.cancelReason, ended.cancellationDetails.reason], ['canceled', '2027-03-15T04:30:00.000Z', 'requested_by_merchant', 'cancellation_requested']);
  });

  it('updates the fields that change no price, each alone; customer.subscription.updated each time; cancelAt and cancelAtPeriodEnd withdraw each other', async () => {
    const { customer, card } = await customerWithCard('update@example.com', '2027-01-15T04:30:00.000Z', '01/39');
    const other = await customerWithCard('other@example.com', '2027-01-15T04:30:00.000Z', '01/39');
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    await api.workflows.settle();
    const changed = await post(`/v1/subscriptions/${sub.id}`, { cardId: card.id, reference: 'r-1', collectionMethod: 'send_invoice', daysUntilDue: 10, trialEndBehavior: 'cancel' });
    assert.deepEqual([changed.cardId, changed.reference, changed.collectionMethod, changed.daysUntilDue, changed.trialEndBehavior], [card.id, 'r-1', 'send_invoice', 10, 'cancel']);
    assert.equal((await post(`/v1/subscriptions/${sub.id}`, { reference: null })).reference, null);
    assert.deepEqual(await post(`/v1/subscriptions/${sub.id}`, {}), await read(`/v1/subscriptions/${sub.id}`), 'nothing sent, nothing changed');
    const atEnd = await post(`/v1/subscriptions/${sub.id}`, { cancelAt: '2027-06-01T00:00:00.000Z' });
    assert.deepEqual([atEnd.cancelAt, atEnd.cancelAtPeriodEnd], ['2027-06-01T00:00:00.000Z', false]);
    const periodEnd = await post(`/v1/subscriptions/${sub.id}`, { cancelAtPeriodEnd: true });
    assert.deepEqual([periodEnd.cancelAt, periodEnd.cancelAtPeriodEnd, periodEnd.canceledAt], [null, true, '2027-01-15T04:30:00.000Z']);
    const withdrawn = await post(`/v1/subscriptions/${sub.id}`, { cancelAtPeriodEnd: false });
    assert.deepEqual([withdrawn.cancelAtPeriodEnd, withdrawn.canceledAt], [false, null]);
    assert.equal(Number((await api.knex('events').where({ type: 'customer.subscription.updated' }).whereRaw("data->>'id' = ?", [sub.id]).count({ n: '*' }))[0]!.n), 7);

    const refusal = async (body: unknown, path = `/v1/subscriptions/${sub.id}`) => {
      const res = await attempt(path, body);
      return [res.status, res.body.reason ?? res.body.code];
    };
    assert.deepEqual(await refusal({ cardId: other.card.id }), [409, 'card_not_reusable']);
    assert.deepEqual(await refusal({ cardId: 'card_000000000000000000000000' }), [404, 'NOT_FOUND']);
    assert.deepEqual(await refusal({ cancelAt: '2027-01-15T04:29:59.000Z' }), [400, 'billing_date_invalid']);
    assert.deepEqual(await refusal({ cancelAt: '2029-01-15T04:30:01.000Z' }), [400, 'billing_date_invalid']);
    assert.deepEqual(await refusal({ cancelAt: '2027-06-01T00:00:00.000Z', cancelAtPeriodEnd: true }), [400, 'VALIDATION_FAILED']);
    assert.deepEqual(await refusal({ trialEnd: '2027-02-01T00:00:00.000Z' }), [409, 'subscription_change_refused']);
    assert.deepEqual(await refusal({ couponId: 'coupon_000000000000000000000000' }), [409, 'coupon_invalid']);
    assert.deepEqual(await refusal({ taxRateIds: ['txr_000000000000000000000000'] }), [409, 'tax_rate_invalid']);
    assert.deepEqual(await refusal({ unknownField: 1 }), [400, 'VALIDATION_FAILED']);
    assert.deepEqual(await refusal({}, '/v1/subscriptions/sub_000000000000000000000000'), [404, 'NOT_FOUND']);
    await post(`/v1/subscriptions/${sub.id}/cancel`);
    assert.deepEqual(await refusal({ reference: 'late' }), [409, 'subscription_ended']);
    assert.deepEqual(await refusal({}, `/v1/subscriptions/${sub.id}/resume`), [409, 'subscription_ended']);
  });

  it('create refuses: trialEnd or cancelAt in the past or over two years ahead, trialDays with trialEnd, an anchor other than now with a trial (400); a live one while saved cards are off (409); takes addInvoiceItems onto the first invoice', async () => {
    const customer = await post('/v1/customers', { email: 'create-rules@example.com' });
    const price = await monthly();
    const refusal = async (body: Record<string, unknown>) => {
      const res = await attempt('/v1/subscriptions', { customerId: customer.id, priceId: price.id, ...body });
      return [res.status, res.body.reason ?? res.body.code];
    };
    assert.deepEqual(await refusal({ trialEnd: '2027-01-15T04:30:00.000Z' }), [400, 'billing_date_invalid']);
    assert.deepEqual(await refusal({ trialEnd: '2029-01-15T04:30:01.000Z' }), [400, 'billing_date_invalid']);
    assert.deepEqual(await refusal({ cancelAt: '2027-01-01T00:00:00.000Z' }), [400, 'billing_date_invalid']);
    assert.deepEqual(await refusal({ trialDays: 731 }), [400, 'VALIDATION_FAILED']);
    assert.deepEqual(await refusal({ trialDays: 3, trialEnd: '2027-02-01T00:00:00.000Z' }), [400, 'VALIDATION_FAILED']);
    assert.deepEqual(await refusal({ trialDays: 3, billingCycleAnchor: 'first_of_month' }), [400, 'billing_cycle_anchor_invalid']);
    assert.deepEqual(await refusal({ billingCycleAnchor: 'someday' }), [400, 'billing_cycle_anchor_invalid']);
    assert.deepEqual(await refusal({ couponId: 'co_1' }), [409, 'coupon_invalid']);
    assert.deepEqual(await refusal({ taxRateIds: ['txr_1'] }), [409, 'tax_rate_invalid']);
    // Live, with saved cards off for the account: a subscription keeps the card, so it is refused.
    const live = (path: string, body: unknown) => api.request(path, { key: keys.sk_live, body, idempotencyKey: ik() });
    const livePrice = (await live('/v1/prices', { product: { name: 'Pro plan' }, unitAmountCents: 150000, interval: 'month' })).body;
    const liveRefused = await live('/v1/subscriptions', { customer: { email: 'live@example.com' }, priceId: livePrice.id });
    assert.deepEqual([liveRefused.status, liveRefused.body.reason], [409, 'saved_cards_off'], liveRefused.text);
    assert.deepEqual(await refusal({ successUrl: 'ftp://example.com/done' }), [400, 'VALIDATION_FAILED']);
    assert.equal(Number((await api.knex('subscriptions').where({ customer_id: customer.id }).count({ n: '*' }))[0]!.n), 0, 'nothing written by a refusal');

    const sub = await post('/v1/subscriptions', {
      customerId: customer.id,
      priceId: price.id,
      collectionMethod: 'send_invoice',
      addInvoiceItems: [{ description: 'Setup fee', unitAmountCents: 25000 }, { description: 'Welcome credit', unitAmountCents: -5000, quantity: 2 }],
    });
    const invoice = await read(`/v1/invoices/${sub.latestInvoiceId}`);
    assert.deepEqual(
      invoice.lines.map((l: any) => [l.description, l.quantity, l.unitAmountCents, l.amountCents, l.periodStart]),
      [
        ['1 × Pro plan', 1, 150000, 150000, '2027-01-15T04:30:00.000Z'],
        ['Setup fee', 1, 25000, 25000, null],
        ['Welcome credit', 2, -5000, -10000, null],
      ],
    );
    assert.equal(invoice.totalCents, 165000);
  });
});
