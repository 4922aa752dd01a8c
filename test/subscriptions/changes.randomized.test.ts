// 208 random changes of subscriptions' items over HTTP on test clocks (prices of several schemes,
// quantities, items added, changed and deleted, a change of interval now and then, each proration
// behaviour, a proration date now or earlier in the period), each previewed first with
// POST /v1/invoices/preview: the invoice the change makes at once equals its preview to the cent,
// and so does each renewal the upcoming invoice announced. Seeded: a failure names its seed.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { draws, random } from '../support/random';
import { billingFlow } from '../invoices/billing-flow';

const SUBSCRIPTIONS = 8;
const CHANGES_EACH = 26;
const START = '2027-01-31T18:30:00.000Z';
const SECOND = 1000;
const DAY = 24 * 60 * 60 * SECOND;

describe('subscriptions: random changes, each preview the invoice to the cent', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());
  const { post, read, advance, customerWithCard } = billingFlow(() => ({ api, keys }));
  const billed = (invoice: any) => [invoice.billingReason, invoice.periodStart, invoice.periodEnd, invoice.lines, invoice.subtotalCents, invoice.totalCents, invoice.amountDueCents];

  it(`${SUBSCRIPTIONS * CHANGES_EACH} changes on ${SUBSCRIPTIONS} subscriptions`, async () => {
    const started = Date.now();
    const monthly = [
      await post('/v1/prices', { product: { name: 'Basic' }, unitAmountCents: 100000, interval: 'month' }),
      await post('/v1/prices', { product: { name: 'Pro' }, unitAmountCents: 312345, interval: 'month' }),
      await post('/v1/prices', { product: { name: 'Seats' }, unitAmountCents: 2599, interval: 'month' }),
      await post('/v1/prices', { product: { name: 'Storage' }, billingScheme: 'package', unitAmountCents: 777, packageSize: 10, interval: 'month' }),
      await post('/v1/prices', {
        product: { name: 'Calls' },
        billingScheme: 'tiered',
        tiersMode: 'graduated',
        tiers: [{ upTo: 5, unitAmountCents: 1999 }, { upTo: null, unitAmountCents: 1234, flatAmountCents: 5000 }],
        interval: 'month',
      }),
    ];
    const yearly = [
      await post('/v1/prices', { product: { name: 'Basic yearly' }, unitAmountCents: 1000000, interval: 'year' }),
      await post('/v1/prices', { product: { name: 'Pro yearly' }, unitAmountCents: 3123457, interval: 'year' }),
    ];
    let changes = 0;
    let madeNow = 0;
    let renewals = 0;
    for (let s = 0; s < SUBSCRIPTIONS; s++) {
      const seed = 0xc4a6e + s;
      const { int, pick, chance } = draws(random(seed));
      const { clock, customer } = await customerWithCard(`random-${s}@example.com`, START, '01/39');
      let sub = await post('/v1/subscriptions', { customerId: customer.id, items: [{ priceId: monthly[0].id, quantity: 1 }] });
      await api.workflows.settle();
      let now = Date.parse(START);
      for (let c = 0; c < CHANGES_EACH; c++) {
        const where = `seed ${seed}, change ${c}`;
        sub = await read(`/v1/subscriptions/${sub.id}`);
        const items: { id: string; price: { id: string; interval: string }; quantity: number }[] = sub.items;
        const catalog = items[0]!.price.interval === 'month' ? monthly : yearly;
        const unused = catalog.filter((p) => !items.some((i) => i.price.id === p.id));
        const op = chance(0.08) ? 'interval' : pick(['quantity', 'price', 'add', 'delete'] as const);
        let body: Record<string, unknown>;
        if (op === 'interval' || (op === 'price' && unused.length === 0 && items.length === 1)) {
          const other = items[0]!.price.interval === 'month' ? yearly : monthly;
          body = { items: [...items.map((i) => ({ id: i.id, deleted: true })), { priceId: pick(other).id, quantity: int(1, 3) }] };
        } else if (op === 'price' && unused.length > 0) {
          body = { items: [{ id: pick(items).id, priceId: pick(unused).id }] };
        } else if (op === 'add' && unused.length > 0) {
          body = { items: [{ priceId: pick(unused).id, quantity: int(1, 40) }] };
        } else if (op === 'delete' && items.length > 1) {
          body = { items: [{ id: pick(items).id, deleted: true }] };
        } else if (items.length === 1) {
          body = { quantity: int(1, 40) };
        } else {
          body = { items: [{ id: pick(items).id, quantity: int(1, 40) }] };
        }
        body.prorationBehavior = pick(['create_prorations', 'always_invoice', 'none']);
        const periodStart = Date.parse(sub.currentPeriodStart);
        if (chance(0.5)) body.prorationDate = new Date(Math.max(periodStart, now - int(0, 3 * DAY / SECOND) * SECOND)).toISOString();

        const preview = await api.request('/v1/invoices/preview', { key: keys.sk_test, body: { subscriptionId: sub.id, ...body } });
        assert.equal(preview.status, 200, `${where}: ${preview.text}`);
        const updated = await api.request(`/v1/subscriptions/${sub.id}`, { key: keys.sk_test, body, idempotencyKey: ik() });
        assert.equal(updated.status, 200, `${where}: ${updated.text}`);
        changes++;
        if (preview.body.billingReason === 'subscription_update') {
          assert.notEqual(updated.body.latestInvoiceId, sub.latestInvoiceId, `${where}: an invoice made now`);
          assert.deepEqual(billed(await read(`/v1/invoices/${updated.body.latestInvoiceId}`)), billed(preview.body), `${where}: the invoice made now`);
          madeNow++;
        } else {
          assert.equal(updated.body.latestInvoiceId, sub.latestInvoiceId, `${where}: nothing invoiced now`);
          const upcoming = (await api.request(`/v1/invoices/upcoming?subscriptionId=${sub.id}`, { key: keys.sk_test })).body;
          assert.deepEqual(billed(upcoming), billed(preview.body), `${where}: the renewal as previewed`);
        }
        await api.workflows.settle();
        if (chance(0.4)) {
          // On to a later time, across a renewal now and then: the renewal is the upcoming invoice announced.
          const upcoming = (await api.request(`/v1/invoices/upcoming?subscriptionId=${sub.id}`, { key: keys.sk_test })).body;
          const cycles = () => api.knex('invoices').where({ subscription_id: sub.id, billing_reason: 'subscription_cycle' }).orderBy('created_at').pluck('id');
          const count = (await cycles()).length;
          now += int(1, 20 * DAY / SECOND) * SECOND;
          await advance(clock.id, new Date(now).toISOString());
          const after = await cycles();
          if (after.length > count) {
            assert.deepEqual(billed(await read(`/v1/invoices/${after[count]}`)), billed(upcoming), `${where}: the renewal`);
            renewals++;
          }
        }
      }
    }
    console.log(`      (${changes} changes: ${madeNow} invoiced at once, the rest previewed as the renewal; ${renewals} renewals compared)`);
    assert.equal(changes, SUBSCRIPTIONS * CHANGES_EACH);
    assert.ok(madeNow > 20 && renewals > 8, `made now ${madeNow}, renewals ${renewals}`);
    assert.ok(Date.now() - started < 60_000, 'well under a minute');
  });
});
