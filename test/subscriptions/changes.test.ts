// Changes of a subscription's items over HTTP on test clocks (DESIGN.md "Proration", "Subscription
// changes"): upgrades and downgrades in the middle of a month under each proration behaviour, a
// quantity change, items added and deleted, monthly to yearly, `prorationDate` at the period's
// first and last second, `pending_if_incomplete` paid and not paid, `cancelAt` after a change;
// each preview equal to the invoice made, to the cent. February 2027 in Sri Lanka: 28 days from
// 1 February 00:00 (2027-01-31T18:30:00Z), so the 15th at 00:00 leaves exactly half.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { payAndKeep } from '../cards/card-flow';
import { billingFlow } from '../invoices/billing-flow';

const FEB_1 = '2027-01-31T18:30:00.000Z';
const FEB_15 = '2027-02-14T18:30:00.000Z';
const MAR_1 = '2027-02-28T18:30:00.000Z';

describe('subscriptions: changes of items, prorated, and their previews', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());
  const { post, read, advance, customerWithCard, invoicesOf, chargesOf, declining } = billingFlow(() => ({ api, keys }));
  const request = (path: string, body?: unknown, idempotencyKey: string | undefined = ik()) => api.request(path, { key: keys.sk_test, body, idempotencyKey: body === undefined ? undefined : idempotencyKey });
  const previewOf = async (body: Record<string, unknown>) => {
    const res = await api.request('/v1/invoices/preview', { key: keys.sk_test, body });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  /** What a preview and the invoice made share (the id, number and what only a stored invoice has left out). */
  const billed = (invoice: any) => ({
    billingReason: invoice.billingReason,
    periodStart: invoice.periodStart,
    periodEnd: invoice.periodEnd,
    lines: invoice.lines,
    subtotalCents: invoice.subtotalCents,
    totalCents: invoice.totalCents,
    amountDueCents: invoice.amountDueCents,
  });
  const amounts = (invoice: any) => invoice.lines.map((l: any) => [l.description, l.amountCents, l.proration]);
  const price = (name: string, unitAmountCents: number, interval = 'month') => post('/v1/prices', { product: { name }, unitAmountCents, interval });

  let n = 0;
  /** A customer on a clock at 1 February with a good card, subscribed to `items` (paid). */
  const subscribed = async (items: { priceId: string; quantity?: number }[], expiry = '01/39') => {
    const { clock, customer } = await customerWithCard(`change-${++n}@example.com`, FEB_1, expiry);
    const sub = await post('/v1/subscriptions', { customerId: customer.id, items });
    await api.workflows.settle();
    assert.equal((await read(`/v1/subscriptions/${sub.id}`)).status, 'active');
    return { clock, customer, sub };
  };

  it('an upgrade in the middle of the month with create_prorations: the proration lines wait for the renewal, which the preview and upcoming show to the cent', async () => {
    const basic = await price('Basic', 100000);
    const pro = await price('Pro', 300000);
    const { clock, sub } = await subscribed([{ priceId: basic.id }]);
    await advance(clock.id, FEB_15);
    const preview = await previewOf({ subscriptionId: sub.id, priceId: pro.id });
    const updated = await post(`/v1/subscriptions/${sub.id}`, { priceId: pro.id });
    assert.deepEqual([updated.price.id, updated.items.length, updated.latestInvoiceId], [pro.id, 1, sub.latestInvoiceId], 'no invoice now');
    const upcoming = (await request(`/v1/invoices/upcoming?subscriptionId=${sub.id}`)).body;
    assert.deepEqual(billed(upcoming), billed(preview));
    assert.deepEqual(amounts(preview), [
      ['1 × Pro', 300000, false],
      ['Unused time on 1 × Basic', -50000, true],
      ['Remaining time on 1 × Pro', 150000, true],
    ]);
    assert.deepEqual([preview.totalCents, preview.lines[1].periodStart, preview.lines[1].periodEnd], [400000, FEB_15, MAR_1]);
    await advance(clock.id, MAR_1);
    const [, renewal] = await invoicesOf(sub.id);
    assert.deepEqual(billed(renewal), billed(preview));
    assert.deepEqual([renewal.status, renewal.amountPaidCents], ['paid', 400000]);
  });

  // An upgrade (Basic 100000 → Pro 300000) and a downgrade (back) on 15 February under each
  // behaviour: what is invoiced now (null: nothing) and what the renewal on 1 March bills.
  const cases: { from: 'basic' | 'pro'; to: 'basic' | 'pro'; behavior: string; now: [string, number][] | null; nowTotal?: number; renewal: [string, number][]; renewalTotal: number; renewalDue?: number }[] = [
    { from: 'basic', to: 'pro', behavior: 'always_invoice', now: [['Unused time on 1 × Basic', -50000], ['Remaining time on 1 × Pro', 150000]], nowTotal: 100000, renewal: [['1 × Pro', 300000]], renewalTotal: 300000 },
    { from: 'basic', to: 'pro', behavior: 'none', now: null, renewal: [['1 × Pro', 300000]], renewalTotal: 300000 },
    { from: 'pro', to: 'basic', behavior: 'create_prorations', now: null, renewal: [['1 × Basic', 100000], ['Unused time on 1 × Pro', -150000], ['Remaining time on 1 × Basic', 50000]], renewalTotal: 0 },
    // Below zero: paid at 0, the credit goes to the customer's balance, which the renewal uses (its total 100000, nothing due).
    { from: 'pro', to: 'basic', behavior: 'always_invoice', now: [['Unused time on 1 × Pro', -150000], ['Remaining time on 1 × Basic', 50000]], nowTotal: -100000, renewal: [['1 × Basic', 100000]], renewalTotal: 100000, renewalDue: 0 },
    { from: 'pro', to: 'basic', behavior: 'none', now: null, renewal: [['1 × Basic', 100000]], renewalTotal: 100000 },
  ];
  for (const c of cases) {
    it(`${c.from === 'basic' ? 'an upgrade' : 'a downgrade'} on the 15th with ${c.behavior}: ${c.now === null ? 'nothing invoiced now' : `${c.nowTotal} cents invoiced now`}, the renewal ${c.renewalTotal}; each preview equals its invoice`, async () => {
      const prices = { basic: await price('Basic', 100000), pro: await price('Pro', 300000) };
      const { clock, sub } = await subscribed([{ priceId: prices[c.from].id }]);
      await advance(clock.id, FEB_15);
      const body = { priceId: prices[c.to].id, prorationBehavior: c.behavior };
      const preview = await previewOf({ subscriptionId: sub.id, ...body });
      const updated = await post(`/v1/subscriptions/${sub.id}`, body);
      await api.workflows.settle();
      const invoices = await invoicesOf(sub.id);
      const short = (invoice: any) => invoice.lines.map((l: any) => [l.description.replace(/ INV-\d+.*$/, ''), l.amountCents]);
      if (c.now === null) {
        assert.equal(invoices.length, 1, 'no invoice now');
        assert.equal(preview.billingReason, 'subscription_cycle', 'the preview is the renewal\'s');
      } else {
        const made = invoices[1];
        assert.deepEqual(billed(made), billed(preview));
        assert.deepEqual([short(made), made.totalCents, made.billingReason, made.periodStart, made.periodEnd, made.status, updated.latestInvoiceId], [c.now, c.nowTotal, 'subscription_update', FEB_15, MAR_1, 'paid', made.id]);
        assert.equal(made.amountPaidCents, Math.max(0, c.nowTotal!));
      }
      assert.equal((await read(`/v1/subscriptions/${sub.id}`)).price.id, prices[c.to].id);
      const upcoming = (await request(`/v1/invoices/upcoming?subscriptionId=${sub.id}`)).body;
      if (c.now === null) assert.deepEqual(billed(upcoming), billed(preview));
      await advance(clock.id, MAR_1);
      const renewal = (await invoicesOf(sub.id)).at(-1);
      assert.deepEqual(billed(renewal), billed(upcoming));
      assert.deepEqual([short(renewal), renewal.totalCents, renewal.amountDueCents, renewal.status, renewal.billingReason], [c.renewal, c.renewalTotal, c.renewalDue ?? c.renewalTotal, 'paid', 'subscription_cycle']);
    });
  }

  it('a quantity change at an odd second (Seats 2500 × 4 → 7 on 20 February 09:17:41Z): -2994 and +5240, to the cent, on the renewal', async () => {
    const seats = await price('Seats', 2500);
    const { clock, sub } = await subscribed([{ priceId: seats.id, quantity: 4 }]);
    const at = '2027-02-20T09:17:41.000Z';
    await advance(clock.id, '2027-02-21T00:00:00.000Z');
    const body = { quantity: 7, prorationDate: at };
    const preview = await previewOf({ subscriptionId: sub.id, ...body });
    const updated = await post(`/v1/subscriptions/${sub.id}`, body);
    assert.deepEqual([updated.quantity, updated.items[0].id], [7, sub.items[0].id], 'the same item, its quantity changed');
    assert.deepEqual(amounts(preview), [
      ['7 × Seats', 17500, false],
      ['Unused time on 4 × Seats', -2994, true],
      ['Remaining time on 7 × Seats', 5240, true],
    ]);
    assert.deepEqual([preview.lines[1].unitAmountCents, preview.lines[2].unitAmountCents, preview.lines[1].periodStart], [-749, 749, at]);
    await advance(clock.id, MAR_1);
    const [, renewal] = await invoicesOf(sub.id);
    assert.deepEqual(billed(renewal), billed(preview));
    assert.equal(renewal.totalCents, 19746);
  });

  it('items added and deleted at once, always_invoice: one credit for the deleted, one charge for the added; the renewal bills the items left', async () => {
    const basic = await price('Basic', 100000);
    const seats = await price('Seats', 2500);
    const support = await price('Support', 20000);
    const { clock, sub } = await subscribed([{ priceId: basic.id }, { priceId: seats.id, quantity: 2 }]);
    const seatsItem = sub.items.find((i: any) => i.price.id === seats.id).id;
    await advance(clock.id, FEB_15);
    const body = { items: [{ id: seatsItem, deleted: true }, { priceId: support.id }], prorationBehavior: 'always_invoice' };
    const preview = await previewOf({ subscriptionId: sub.id, ...body });
    const updated = await post(`/v1/subscriptions/${sub.id}`, body);
    assert.deepEqual(updated.items.map((i: any) => [i.price.id, i.quantity]).sort(), [[basic.id, 1], [support.id, 1]].sort());
    await api.workflows.settle();
    const [, made] = await invoicesOf(sub.id);
    assert.deepEqual(billed(made), billed(preview));
    assert.deepEqual([amounts(made), made.totalCents, made.status], [[['Unused time on 2 × Seats', -2500, true], ['Remaining time on 1 × Support', 10000, true]], 7500, 'paid']);
    await advance(clock.id, MAR_1);
    const [, , renewal] = await invoicesOf(sub.id);
    assert.deepEqual([renewal.totalCents, renewal.lines.length], [120000, 2]);
  });

  it('monthly to yearly on the 15th: a new period from then (the new anchor), invoiced now: the unused half month credited, the whole year billed', async () => {
    const basic = await price('Basic', 100000);
    const yearly = await post('/v1/prices', { product: { name: 'Basic yearly' }, unitAmountCents: 1000000, interval: 'year' });
    const { clock, sub } = await subscribed([{ priceId: basic.id }]);
    await advance(clock.id, FEB_15);
    const preview = await previewOf({ subscriptionId: sub.id, priceId: yearly.id });
    const updated = await post(`/v1/subscriptions/${sub.id}`, { priceId: yearly.id });
    assert.deepEqual([updated.billingCycleAnchor, updated.currentPeriodStart, updated.currentPeriodEnd], [FEB_15, FEB_15, '2028-02-14T18:30:00.000Z']);
    await api.workflows.settle();
    const [, made] = await invoicesOf(sub.id);
    assert.deepEqual(billed(made), billed(preview));
    assert.deepEqual([amounts(made), made.totalCents, made.status, made.billingReason, made.periodEnd], [[['Unused time on 1 × Basic', -50000, true], ['1 × Basic yearly', 1000000, false]], 950000, 'paid', 'subscription_update', '2028-02-14T18:30:00.000Z']);
    // No renewal on 1 March: the next is a year on.
    await advance(clock.id, '2027-03-02T00:00:00.000Z');
    assert.equal((await invoicesOf(sub.id)).length, 2);
    assert.equal((await request(`/v1/invoices/upcoming?subscriptionId=${sub.id}`)).body.periodStart, '2028-02-14T18:30:00.000Z');
  });

  it('prorationDate at the period\'s first second credits and charges the whole period; at its last second, 0 and 0; outside it or after now, 400 billing_date_invalid', async () => {
    const basic = await price('Basic', 100000);
    const pro = await price('Pro', 300000);
    const first = await subscribed([{ priceId: basic.id }]);
    await advance(first.clock.id, FEB_15);
    const atStart = { priceId: pro.id, prorationBehavior: 'always_invoice', prorationDate: FEB_1 };
    const preview = await previewOf({ subscriptionId: first.sub.id, ...atStart });
    await post(`/v1/subscriptions/${first.sub.id}`, atStart);
    await api.workflows.settle();
    const [, made] = await invoicesOf(first.sub.id);
    assert.deepEqual(billed(made), billed(preview));
    assert.deepEqual([amounts(made), made.totalCents], [[['Unused time on 1 × Basic', -100000, true], ['Remaining time on 1 × Pro', 300000, true]], 200000]);

    const last = await subscribed([{ priceId: basic.id }]);
    const lastSecond = '2027-02-28T18:29:59.000Z';
    await advance(last.clock.id, lastSecond);
    const refused = async (prorationDate: string) => {
      const res = await request(`/v1/subscriptions/${last.sub.id}`, { priceId: pro.id, prorationDate });
      const viaPreview = await api.request('/v1/invoices/preview', { key: keys.sk_test, body: { subscriptionId: last.sub.id, priceId: pro.id, prorationDate } });
      return [res.status, res.body.reason, viaPreview.status, viaPreview.body.reason];
    };
    assert.deepEqual(await refused('2027-01-31T18:29:59.000Z'), [400, 'billing_date_invalid', 400, 'billing_date_invalid'], 'before the period');
    const atEnd = { priceId: pro.id, prorationBehavior: 'always_invoice', prorationDate: lastSecond };
    const lastPreview = await previewOf({ subscriptionId: last.sub.id, ...atEnd });
    await post(`/v1/subscriptions/${last.sub.id}`, atEnd);
    const [, zero] = await invoicesOf(last.sub.id);
    assert.deepEqual(billed(zero), billed(lastPreview));
    assert.deepEqual([amounts(zero), zero.totalCents, zero.status], [[['Unused time on 1 × Basic', 0, true], ['Remaining time on 1 × Pro', 0, true]], 0, 'paid']);
    await advance(last.clock.id, MAR_1);
    assert.deepEqual(await refused(lastSecond), [400, 'billing_date_invalid', 400, 'billing_date_invalid'], 'the period before, now renewed');
    assert.deepEqual(await refused('2027-03-01T00:00:00.000Z'), [400, 'billing_date_invalid', 400, 'billing_date_invalid'], 'after now');
  });

  it('pending_if_incomplete, paid: the answer keeps the items and shows the change in pendingUpdate; its invoice paid, the change applies', async () => {
    const basic = await price('Basic', 100000);
    const pro = await price('Pro', 300000);
    const { clock, sub } = await subscribed([{ priceId: basic.id }]);
    await advance(clock.id, FEB_15);
    const body = { priceId: pro.id, prorationBehavior: 'always_invoice', paymentBehavior: 'pending_if_incomplete' };
    const waiting = await post(`/v1/subscriptions/${sub.id}`, body);
    assert.deepEqual(
      [waiting.price.id, waiting.pendingUpdate, waiting.latestInvoiceId === sub.latestInvoiceId],
      [basic.id, { items: [{ id: sub.items[0].id, priceId: pro.id, quantity: 1 }], expiresAt: '2027-02-15T17:30:00.000Z' }, false],
    );
    await api.workflows.settle();
    const paid = await read(`/v1/invoices/${waiting.latestInvoiceId}`);
    assert.deepEqual([paid.status, paid.totalCents, paid.billingReason], ['paid', 100000, 'subscription_update']);
    const applied = await read(`/v1/subscriptions/${sub.id}`);
    assert.deepEqual([applied.price.id, applied.items[0].id, applied.pendingUpdate, applied.status], [pro.id, sub.items[0].id, null, 'active']);
    await advance(clock.id, MAR_1);
    assert.deepEqual((await invoicesOf(sub.id)).map((i: any) => i.totalCents), [100000, 100000, 300000]);
  });

  it('pending_if_incomplete with a change of interval, paid: the new period and anchor apply with the items once its invoice is paid', async () => {
    const basic = await price('Basic', 100000);
    const yearly = await post('/v1/prices', { product: { name: 'Basic yearly' }, unitAmountCents: 1000000, interval: 'year' });
    const { clock, sub } = await subscribed([{ priceId: basic.id }]);
    await advance(clock.id, FEB_15);
    const waiting = await post(`/v1/subscriptions/${sub.id}`, { priceId: yearly.id, paymentBehavior: 'pending_if_incomplete' });
    assert.deepEqual([waiting.price.id, waiting.currentPeriodEnd, waiting.pendingUpdate.items], [basic.id, MAR_1, [{ id: sub.items[0].id, priceId: yearly.id, quantity: 1 }]]);
    await api.workflows.settle();
    const applied = await read(`/v1/subscriptions/${sub.id}`);
    assert.deepEqual(
      [applied.price.id, applied.billingCycleAnchor, applied.currentPeriodStart, applied.currentPeriodEnd, applied.pendingUpdate],
      [yearly.id, FEB_15, FEB_15, '2028-02-14T18:30:00.000Z', null],
    );
    assert.deepEqual((await read(`/v1/invoices/${waiting.latestInvoiceId}`)).totalCents, 950000);
    await advance(clock.id, '2027-03-02T00:00:00.000Z');
    assert.equal((await invoicesOf(sub.id)).length, 2, 'no monthly renewal');
  });

  it('pending_if_incomplete, not paid: declined, no dunning ladder and the subscription still active; another change waits (409 subscription_change_refused); at expiresAt the change is dropped and its invoice voided', async () => {
    const pro = await price('Pro', 300000);
    // On Rs. 1,500.00 a month (150000), paid; the customer's card now declines every charge made without them.
    const { clock, subscription: sub } = await declining(`pending-declined-${++n}@example.com`, FEB_1);
    const planId = sub.price.id;
    await advance(clock.id, FEB_15);
    const waiting = await post(`/v1/subscriptions/${sub.id}`, { priceId: pro.id, prorationBehavior: 'always_invoice', paymentBehavior: 'pending_if_incomplete' });
    await api.workflows.settle();
    const declined = await read(`/v1/invoices/${waiting.latestInvoiceId}`);
    assert.deepEqual([declined.status, declined.attemptCount, declined.nextAttemptAt], ['open', 1, null]);
    const row = await read(`/v1/subscriptions/${sub.id}`);
    assert.deepEqual([row.status, row.price.id, row.pendingUpdate?.expiresAt, declined.totalCents], ['active', planId, '2027-02-15T17:30:00.000Z', 75000]);
    const again = await request(`/v1/subscriptions/${sub.id}`, { quantity: 2 });
    assert.deepEqual([again.status, again.body.reason], [409, 'subscription_change_refused']);
    await advance(clock.id, '2027-02-15T17:30:00.000Z');
    const dropped = await read(`/v1/subscriptions/${sub.id}`);
    assert.deepEqual([dropped.status, dropped.price.id, dropped.quantity, dropped.pendingUpdate], ['active', planId, 1, null]);
    assert.equal((await read(`/v1/invoices/${waiting.latestInvoiceId}`)).status, 'void');
    assert.deepEqual((await chargesOf(waiting.latestInvoiceId)).map((c: any) => c.status), ['failed'], 'charged once, not retried');
  });

  it('pending_if_incomplete across a renewal: the renewal drops the change waiting (its invoice voided) and bills the items as they were', async () => {
    const pro = await price('Pro', 300000);
    const { clock, subscription: sub } = await declining(`pending-renewal-${++n}@example.com`, FEB_1);
    await advance(clock.id, '2027-02-28T06:30:00.000Z');
    const waiting = await post(`/v1/subscriptions/${sub.id}`, { priceId: pro.id, prorationBehavior: 'always_invoice', paymentBehavior: 'pending_if_incomplete' });
    assert.equal(waiting.pendingUpdate.expiresAt, '2027-03-01T05:30:00.000Z', 'after the renewal');
    await advance(clock.id, MAR_1);
    const row = await read(`/v1/subscriptions/${sub.id}`);
    assert.deepEqual([row.pendingUpdate, row.price.id], [null, sub.price.id]);
    const [, dropped, renewal] = await invoicesOf(sub.id);
    assert.deepEqual([dropped.id, dropped.status], [waiting.latestInvoiceId, 'void']);
    assert.deepEqual([renewal.billingReason, renewal.lines.map((l: any) => [l.description, l.amountCents])], ['subscription_cycle', [['1 × Pro plan', 150000]]]);
  });

  it('cancelAt in the middle of the period after a change: the last period bills the new items up to it, prorated, with the change\'s lines; the preview equals it', async () => {
    const basic = await price('Basic', 100000);
    const pro = await price('Pro', 300000);
    const { clock, sub } = await subscribed([{ priceId: basic.id }]);
    await advance(clock.id, FEB_15);
    await post(`/v1/subscriptions/${sub.id}`, { priceId: pro.id });
    // 16 March 00:00 in Sri Lanka: 15 days of March's 31.
    await post(`/v1/subscriptions/${sub.id}`, { cancelAt: '2027-03-15T18:30:00.000Z' });
    const upcoming = (await request(`/v1/invoices/upcoming?subscriptionId=${sub.id}`)).body;
    await advance(clock.id, MAR_1);
    const [, renewal] = await invoicesOf(sub.id);
    assert.deepEqual(billed(renewal), billed(upcoming));
    assert.deepEqual([amounts(renewal), renewal.totalCents, renewal.periodEnd], [[['1 × Pro', 145161, true], ['Unused time on 1 × Basic', -50000, true], ['Remaining time on 1 × Pro', 150000, true]], 245161, '2027-03-15T18:30:00.000Z']);
    await advance(clock.id, '2027-03-16T00:00:00.000Z');
    assert.equal((await read(`/v1/subscriptions/${sub.id}`)).status, 'canceled');
  });

  it('an open invoice in dunning is retried on a new cardId at its next attempt', async () => {
    const { clock, subscription } = await declining(`dunning-card-${++n}@example.com`, FEB_1);
    await advance(clock.id, '2027-02-28T19:00:00.000Z');
    const [, renewal] = await invoicesOf(subscription.id);
    assert.deepEqual([renewal.status, renewal.attemptCount, (await read(`/v1/subscriptions/${subscription.id}`)).status], ['open', 1, 'past_due']);
    const { card } = await payAndKeep(api, keys, { email: `dunning-card-${n}@example.com`, expiry: '01/39' });
    await post(`/v1/subscriptions/${subscription.id}`, { cardId: card.id });
    await advance(clock.id, '2027-03-01T19:00:00.000Z');
    const paid = await read(`/v1/invoices/${renewal.id}`);
    assert.deepEqual([paid.status, paid.attemptCount, (await read(`/v1/subscriptions/${subscription.id}`)).status], ['paid', 2, 'active']);
    const cards = await api.knex('payments').where({ invoice_id: renewal.id }).orderBy('invoice_attempt').select('status', 'saved_card_id');
    assert.deepEqual(cards.map((p: any) => p.status), ['failed', 'succeeded']);
    assert.equal(cards[1].saved_card_id, card.id, 'the second attempt on the new card');
    assert.notEqual(cards[0].saved_card_id, card.id);
  });

  it('refusals: items_invalid, price_unavailable, subscription_change_refused while incomplete, subscription_ended; a change refused with another field leaves everything as it was', async () => {
    const basic = await price('Basic', 100000);
    const seats = await price('Seats', 2500);
    const yearly = await post('/v1/prices', { product: { name: 'Yearly' }, unitAmountCents: 1000000, interval: 'year' });
    const archived = await price('Old', 50000);
    await api.knex('prices').where({ id: archived.id }).update({ active: false, archived_at: new Date() });
    const { clock, sub } = await subscribed([{ priceId: basic.id }, { priceId: seats.id, quantity: 3 }]);
    await advance(clock.id, FEB_15);
    const reason = async (body: Record<string, unknown>) => {
      const res = await request(`/v1/subscriptions/${sub.id}`, body);
      const viaPreview = await api.request('/v1/invoices/preview', { key: keys.sk_test, body: { subscriptionId: sub.id, ...body } });
      return [res.status, res.body.reason ?? res.body.code, viaPreview.status, viaPreview.body.reason ?? viaPreview.body.code];
    };
    const [basicItem, seatsItem] = [sub.items[0].id, sub.items[1].id];
    assert.deepEqual(await reason({ priceId: yearly.id }), [400, 'items_invalid', 400, 'items_invalid'], 'priceId on a two-item subscription');
    assert.deepEqual(await reason({ items: [{ id: 'si_000000000000000000000000', quantity: 2 }] }), [400, 'items_invalid', 400, 'items_invalid'], 'no such item');
    assert.deepEqual(await reason({ items: [{ id: basicItem, deleted: true }, { id: seatsItem, deleted: true }] }), [400, 'items_invalid', 400, 'items_invalid'], 'none left');
    assert.deepEqual(await reason({ items: [{ priceId: yearly.id }] }), [400, 'items_invalid', 400, 'items_invalid'], 'two intervals');
    assert.deepEqual(await reason({ items: [{ priceId: basic.id }] }), [400, 'items_invalid', 400, 'items_invalid'], 'a price twice');
    assert.deepEqual(await reason({ items: [{ quantity: 2 }] }), [400, 'items_invalid', 400, 'items_invalid'], 'a new item without a price');
    assert.deepEqual(await reason({ items: [{ id: basicItem, quantity: 2 }, { id: basicItem, quantity: 3 }] }), [400, 'items_invalid', 400, 'items_invalid'], 'an item twice');
    assert.deepEqual(await reason({ items: Array.from({ length: 11 }, () => ({ priceId: basic.id })) }), [400, 'items_invalid', 400, 'items_invalid'], 'more than ten');
    assert.deepEqual(await reason({ items: [{ id: seatsItem, priceId: archived.id }] }), [409, 'price_unavailable', 409, 'price_unavailable']);
    const other = await api.merchant({ activate: true });
    const foreign = (await api.request('/v1/prices', { key: other.keys.sk_test, body: { product: { name: 'Theirs' }, unitAmountCents: 5000, interval: 'month' }, idempotencyKey: ik() })).body;
    assert.deepEqual(await reason({ items: [{ priceId: foreign.id }] }), [400, 'items_invalid', 400, 'items_invalid'], 'another account\'s price');
    assert.deepEqual(await reason({ priceId: basic.id, items: [{ id: basicItem, quantity: 2 }] }), [400, 'VALIDATION_FAILED', 400, 'VALIDATION_FAILED'], 'priceId with items');

    // A change made, then refused by another field of the same request: nothing of it stays.
    const mixed = await request(`/v1/subscriptions/${sub.id}`, { items: [{ id: seatsItem, quantity: 9 }], prorationBehavior: 'always_invoice', cancelAt: '2026-01-01T00:00:00.000Z' });
    assert.deepEqual([mixed.status, mixed.body.reason], [400, 'billing_date_invalid']);
    const unchanged = await read(`/v1/subscriptions/${sub.id}`);
    assert.deepEqual([unchanged.items.map((i: any) => i.quantity), (await invoicesOf(sub.id)).length, unchanged.latestInvoiceId], [[1, 3], 1, sub.latestInvoiceId]);

    const cardless = await post('/v1/customers', { email: `cardless-${++n}@example.com` });
    const incomplete = await post('/v1/subscriptions', { customerId: cardless.id, priceId: basic.id });
    const early = await request(`/v1/subscriptions/${incomplete.id}`, { quantity: 2 });
    assert.deepEqual([early.status, early.body.reason], [409, 'subscription_change_refused']);
    await post(`/v1/subscriptions/${incomplete.id}/cancel`);
    const ended = await request(`/v1/subscriptions/${incomplete.id}`, { quantity: 2 });
    assert.deepEqual([ended.status, ended.body.reason], [409, 'subscription_ended']);
  });
});
