// Coupons and tax rates over HTTP: the resources (create, list, get, archive, their validation), and
// what they do to subscriptions and invoices: `couponId` and `taxRateIds` on create and update, the
// subscription's `discount`, invoices' `couponId`, `discountCents`, `taxes` and `taxCents` (Sri
// Lanka's 18% VAT, exclusive and inclusive, to the cent), and every 409 they answer.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';

describe('coupons and tax rates', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-03-01T04:30:00.000Z') })));
  after(() => api.close());

  const send = (path: string, body: unknown, key = keys.sk_test, method = 'POST') => api.request(path, { method, key, body, idempotencyKey: ik() });
  const post = async (path: string, body: unknown, key = keys.sk_test) => {
    const res = await send(path, body, key);
    assert.ok(res.status < 300, `${path}: ${res.text}`);
    return res.body;
  };
  const read = async (path: string, key = keys.sk_test) => (await api.request(path, { key })).body;
  const archive = async (path: string) => {
    const res = await api.request(path, { method: 'DELETE', key: keys.sk_test, idempotencyKey: ik() });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const refusal = (res: { status: number; body: any }) => [res.status, res.body.reason ?? res.body.code];

  let customer: any;
  let price: any;
  before(async () => {
    customer = await post('/v1/customers', { email: 'nimal@example.com' });
    price = await post('/v1/prices', { product: { name: 'Pro plan' }, unitAmountCents: 100000, interval: 'month' });
  });
  const subscribe = (body: Record<string, unknown>) => send('/v1/subscriptions', { customerId: customer.id, priceId: price.id, collectionMethod: 'send_invoice', ...body });

  describe('coupons', () => {
    it('are made percent off or amount off, listed newest first by keyset, read one by one', async () => {
      const percent = await post('/v1/coupons', { name: '20% off for 3 months', percentOff: 12.34, duration: 'repeating', durationInMonths: 3, maxRedemptions: 10, redeemBy: '2027-06-01T00:00:00.000Z' });
      assert.match(percent.id, /^coupon_[0-9a-z]{24}$/);
      assert.deepEqual({ ...percent, id: undefined }, {
        object: 'coupon', id: undefined, mode: 'test', name: '20% off for 3 months', percentOff: 12.34, amountOffCents: null, duration: 'repeating', durationInMonths: 3,
        maxRedemptions: 10, timesRedeemed: 0, redeemBy: '2027-06-01T00:00:00.000Z', valid: true, createdAt: '2027-03-01T04:30:00.000Z',
      });
      const amount = await post('/v1/coupons', { amountOffCents: 50000, duration: 'forever' });
      assert.deepEqual([amount.name, amount.percentOff, amount.amountOffCents, amount.durationInMonths, amount.maxRedemptions, amount.redeemBy], [null, null, 50000, null, null, null]);
      const first = await read('/v1/coupons?limit=1');
      assert.deepEqual([first.data.map((c: any) => c.id), first.hasMore, first.nextCursor], [[amount.id], true, amount.id]);
      const second = await read(`/v1/coupons?limit=1&cursor=${first.nextCursor}`);
      assert.deepEqual(second.data, [percent]);
      assert.deepEqual(await read(`/v1/coupons/${percent.id}`), percent);
    });

    it('refuses bodies that cannot make one', async () => {
      for (const [body, path] of [
        [{ percentOff: 10, amountOffCents: 100, duration: 'once' }, 'amountOffCents'],
        [{ duration: 'once' }, 'percentOff'],
        [{ percentOff: 12.345, duration: 'once' }, 'percentOff'],
        [{ percentOff: 0, duration: 'once' }, 'percentOff'],
        [{ percentOff: 5e-324, duration: 'once' }, 'percentOff'],
        [{ percentOff: 100.01, duration: 'once' }, 'percentOff'],
        [{ amountOffCents: 100000001, duration: 'once' }, 'amountOffCents'],
        [{ percentOff: 10, duration: 'repeating' }, 'durationInMonths'],
        [{ percentOff: 10, duration: 'repeating', durationInMonths: 37 }, 'durationInMonths'],
        [{ percentOff: 10, duration: 'once', durationInMonths: 3 }, 'durationInMonths'],
        [{ percentOff: 10, duration: 'once', name: 'x'.repeat(41) }, 'name'],
        [{ percentOff: 10, duration: 'once', maxRedemptions: 0 }, 'maxRedemptions'],
      ] as const) {
        const res = await send('/v1/coupons', body);
        assert.deepEqual([res.status, res.body.code], [400, 'VALIDATION_FAILED'], JSON.stringify(body));
        assert.ok(res.body.fields.some((f: any) => f.path === path), `${JSON.stringify(body)}: ${res.text}`);
      }
      for (const redeemBy of ['2027-02-28T00:00:00.000Z', '2029-03-02T00:00:00.000Z']) {
        const res = await send('/v1/coupons', { percentOff: 10, duration: 'once', redeemBy });
        assert.deepEqual([res.status, res.body.reason, res.body.fields.map((f: any) => f.path)], [400, 'billing_date_invalid', ['redeemBy']], redeemBy);
      }
      assert.equal((await api.request('/v1/coupons', { key: keys.sk_test, body: { percentOff: 10, duration: 'once' } })).body.reason, 'idempotency_key_missing');
    });

    it('archived: valid false, again the same; 404 for none, mode_mismatch with the other mode\'s key', async () => {
      const coupon = await post('/v1/coupons', { percentOff: 5, duration: 'once' });
      const archived = await archive(`/v1/coupons/${coupon.id}`);
      assert.deepEqual({ ...archived, valid: true }, coupon);
      assert.equal(archived.valid, false);
      assert.deepEqual(await archive(`/v1/coupons/${coupon.id}`), archived);
      assert.deepEqual(refusal(await api.request(`/v1/coupons/${coupon.id}`, { key: keys.sk_live })), [404, 'mode_mismatch']);
      assert.deepEqual(refusal(await api.request('/v1/coupons/coupon_000000000000000000000000', { key: keys.sk_test })), [404, 'NOT_FOUND']);
    });

    it('past its redeemBy (wall time) it is not valid', async () => {
      const coupon = await post('/v1/coupons', { percentOff: 5, duration: 'once', redeemBy: new Date(api.clock.now().getTime() + 60_000).toISOString() });
      assert.equal(coupon.valid, true);
      await api.clock.advance(61_000);
      assert.equal((await read(`/v1/coupons/${coupon.id}`)).valid, false);
      assert.deepEqual(refusal(await subscribe({ couponId: coupon.id })), [409, 'coupon_invalid']);
    });
  });

  describe('tax rates', () => {
    it('are made, listed, read and archived (active false)', async () => {
      const vat = await post('/v1/tax_rates', { displayName: 'VAT', percentage: 18, inclusive: false, description: 'Sri Lanka VAT' });
      assert.match(vat.id, /^txr_[0-9a-z]{24}$/);
      assert.deepEqual({ ...vat, id: undefined, createdAt: undefined }, { object: 'tax_rate', id: undefined, mode: 'test', displayName: 'VAT', percentage: 18, inclusive: false, description: 'Sri Lanka VAT', active: true, createdAt: undefined });
      const odd = await post('/v1/tax_rates', { displayName: 'Levy', percentage: 2.5125, inclusive: true });
      assert.deepEqual([odd.percentage, odd.description], [2.5125, null]);
      assert.deepEqual((await read('/v1/tax_rates?limit=2')).data.map((r: any) => r.id), [odd.id, vat.id]);
      assert.deepEqual(await read(`/v1/tax_rates/${vat.id}`), vat);
      const archived = await archive(`/v1/tax_rates/${odd.id}`);
      assert.deepEqual({ ...archived, active: true }, odd);
      assert.equal(archived.active, false);
      assert.deepEqual(refusal(await api.request(`/v1/tax_rates/${vat.id}`, { key: keys.sk_live })), [404, 'mode_mismatch']);
      for (const body of [{ displayName: 'VAT', percentage: 18.00001, inclusive: false }, { displayName: 'VAT', percentage: 5e-324, inclusive: false }, { displayName: 'VAT', percentage: 101, inclusive: false }, { displayName: '', percentage: 1, inclusive: false }, { displayName: 'VAT', percentage: 1 }]) {
        assert.deepEqual(refusal(await send('/v1/tax_rates', body)), [400, 'VALIDATION_FAILED'], JSON.stringify(body));
      }
    });
  });

  describe('on subscriptions and invoices', () => {
    it('18% VAT exclusive: a 100000-cent line has tax 18000 and totals 118000; inclusive: a 118000-cent line contains 18000 and totals 118000', async () => {
      const exclusive = await post('/v1/tax_rates', { displayName: 'VAT', percentage: 18, inclusive: false });
      const sub = (await subscribe({ taxRateIds: [exclusive.id] })).body;
      assert.deepEqual([sub.taxRateIds, sub.discount], [[exclusive.id], null]);
      const invoice = await read(`/v1/invoices/${sub.latestInvoiceId}`);
      assert.deepEqual(
        [invoice.subtotalCents, invoice.discountCents, invoice.couponId, invoice.taxCents, invoice.totalCents, invoice.amountDueCents, invoice.taxes],
        [100000, 0, null, 18000, 118000, 118000, [{ taxRateId: exclusive.id, percentage: 18, inclusive: false, taxableAmountCents: 100000, amountCents: 18000 }]],
      );
      const inclusive = await post('/v1/tax_rates', { displayName: 'VAT', percentage: 18, inclusive: true });
      const gross = await post('/v1/prices', { product: { name: 'Pro plan, VAT included' }, unitAmountCents: 118000, interval: 'month' });
      const included = (await subscribe({ priceId: gross.id, taxRateIds: [inclusive.id] })).body;
      const contained = await read(`/v1/invoices/${included.latestInvoiceId}`);
      assert.deepEqual(
        [contained.subtotalCents, contained.taxCents, contained.totalCents, contained.amountDueCents, contained.taxes],
        [118000, 0, 118000, 118000, [{ taxRateId: inclusive.id, percentage: 18, inclusive: true, taxableAmountCents: 100000, amountCents: 18000 }]],
      );
    });

    it('a coupon on create discounts the invoice, counts in timesRedeemed and shows as the discount', async () => {
      const coupon = await post('/v1/coupons', { percentOff: 25, duration: 'forever' });
      const sub = (await subscribe({ couponId: coupon.id })).body;
      assert.deepEqual(sub.discount, { couponId: coupon.id, start: sub.createdAt, end: null });
      const invoice = await read(`/v1/invoices/${sub.latestInvoiceId}`);
      assert.deepEqual([invoice.subtotalCents, invoice.discountCents, invoice.couponId, invoice.totalCents], [100000, 25000, coupon.id, 75000]);
      assert.equal((await read(`/v1/coupons/${coupon.id}`)).timesRedeemed, 1);
      // Archived, it is applied no more, and what it discounts goes on being discounted.
      await archive(`/v1/coupons/${coupon.id}`);
      assert.deepEqual((await read(`/v1/invoices/upcoming?subscriptionId=${sub.id}`)).discountCents, 25000);
      assert.deepEqual(refusal(await subscribe({ couponId: coupon.id })), [409, 'coupon_invalid']);
    });

    it('an amount off takes at most the discountable lines: not an added line made not discountable', async () => {
      const coupon = await post('/v1/coupons', { amountOffCents: 150000, duration: 'once' });
      const sub = (await subscribe({ couponId: coupon.id, addInvoiceItems: [{ description: 'Set-up', unitAmountCents: 20000, discountable: false }] })).body;
      const invoice = await read(`/v1/invoices/${sub.latestInvoiceId}`);
      assert.deepEqual([invoice.subtotalCents, invoice.discountCents, invoice.totalCents], [120000, 100000, 20000]);
      // The invoice says which lines the coupon discounts, so that a person can check its discount.
      assert.deepEqual(invoice.lines.map((l: { amountCents: number; discountable: boolean; taxable: boolean }) => [l.amountCents, l.discountable, l.taxable]), [[100000, true, true], [20000, false, true]]);
      // In the documented order, whatever order the stored line's keys come back in.
      assert.deepEqual(Object.keys(invoice.lines[1]), ['description', 'quantity', 'unitAmountCents', 'amountCents', 'periodStart', 'periodEnd', 'proration', 'priceId', 'discountable', 'taxable']);
      // `once`: used by that invoice, it is over.
      assert.equal(sub.discount, null);
      assert.equal((await read(`/v1/invoices/upcoming?subscriptionId=${sub.id}`)).discountCents, 0);
    });

    it('409 coupon_invalid: used up, archived, unknown, of the other mode, another account\'s', async () => {
      const once = await post('/v1/coupons', { percentOff: 10, duration: 'once', maxRedemptions: 1 });
      assert.equal((await subscribe({ couponId: once.id })).status, 201);
      const usedUp = await read(`/v1/coupons/${once.id}`);
      assert.deepEqual([usedUp.timesRedeemed, usedUp.valid], [1, false]);
      const archived = await post('/v1/coupons', { percentOff: 10, duration: 'once' });
      await archive(`/v1/coupons/${archived.id}`);
      const live = await post('/v1/coupons', { percentOff: 10, duration: 'once' }, keys.sk_live);
      const other = await api.merchant({ activate: true });
      const foreign = await post('/v1/coupons', { percentOff: 10, duration: 'once' }, other.keys.sk_test);
      for (const [couponId, message] of [[once.id, /used up/], [archived.id, /archived/], ['coupon_000000000000000000000000', /not a coupon of yours/], [live.id, /live coupon/], [foreign.id, /not a coupon of yours/], ['nonsense', /not a coupon of yours/]] as const) {
        const res = await subscribe({ couponId });
        assert.deepEqual(refusal(res), [409, 'coupon_invalid'], couponId);
        assert.match(res.body.message, message);
        const invoice = await send('/v1/invoices', { customerId: customer.id, couponId });
        assert.deepEqual(refusal(invoice), [409, 'coupon_invalid'], couponId);
      }
      // Nothing was made or counted by the refused requests.
      assert.equal((await read(`/v1/coupons/${foreign.id}`, other.keys.sk_test)).timesRedeemed, 0);
    });

    it('409 tax_rate_invalid: archived, unknown, of the other mode, another account\'s; more than 5 or twice: 400', async () => {
      const archived = await post('/v1/tax_rates', { displayName: 'Old VAT', percentage: 15, inclusive: false });
      await archive(`/v1/tax_rates/${archived.id}`);
      const live = await post('/v1/tax_rates', { displayName: 'VAT', percentage: 18, inclusive: false }, keys.sk_live);
      const other = await api.merchant({ activate: true });
      const foreign = await post('/v1/tax_rates', { displayName: 'VAT', percentage: 18, inclusive: false }, other.keys.sk_test);
      const vat = await post('/v1/tax_rates', { displayName: 'VAT', percentage: 18, inclusive: false });
      for (const [id, message] of [[archived.id, /archived/], ['txr_000000000000000000000000', /not a tax rate of yours/], [live.id, /live tax rate/], [foreign.id, /not a tax rate of yours/]] as const) {
        const res = await subscribe({ taxRateIds: [vat.id, id] });
        assert.deepEqual(refusal(res), [409, 'tax_rate_invalid'], id);
        assert.match(res.body.message, message);
        assert.deepEqual(res.body.fields.map((f: any) => f.path), ['taxRateIds[1]']);
      }
      const six = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => post('/v1/tax_rates', { displayName: `Rate ${n}`, percentage: n, inclusive: false })));
      assert.deepEqual(refusal(await subscribe({ taxRateIds: six.map((r) => r.id) })), [400, 'VALIDATION_FAILED']);
      assert.deepEqual(refusal(await subscribe({ taxRateIds: [vat.id, vat.id] })), [400, 'VALIDATION_FAILED']);
    });

    it('update: a coupon applied from now and counted, the same again changes nothing, null removes it; rates replaced, kept though archived, [] stops taxing', async () => {
      const vat = await post('/v1/tax_rates', { displayName: 'VAT', percentage: 18, inclusive: false });
      const sub = (await subscribe({ taxRateIds: [vat.id] })).body;
      const coupon = await post('/v1/coupons', { percentOff: 50, duration: 'repeating', durationInMonths: 2 });
      const update = (body: unknown) => send(`/v1/subscriptions/${sub.id}`, body);
      await api.clock.advance(60 * 60 * 1000);
      const applied = (await update({ couponId: coupon.id })).body;
      assert.deepEqual(applied.discount, { couponId: coupon.id, start: '2027-03-01T05:31:01.000Z', end: '2027-05-01T05:31:01.000Z' });
      const upcoming = await read(`/v1/invoices/upcoming?subscriptionId=${sub.id}`);
      assert.deepEqual([upcoming.subtotalCents, upcoming.discountCents, upcoming.couponId, upcoming.taxCents, upcoming.totalCents], [100000, 50000, coupon.id, 9000, 59000]);
      assert.deepEqual((await update({ couponId: coupon.id })).body.discount, applied.discount);
      assert.equal((await read(`/v1/coupons/${coupon.id}`)).timesRedeemed, 1);
      const [event] = await api.knex('events').where({ type: 'customer.subscription.updated' }).whereRaw("data->>'id' = ?", [sub.id]).orderBy('id').limit(1);
      assert.deepEqual(event.data.discount, applied.discount);
      assert.equal((await update({ couponId: null })).body.discount, null);
      assert.equal((await read(`/v1/invoices/upcoming?subscriptionId=${sub.id}`)).discountCents, 0);

      const levy = await post('/v1/tax_rates', { displayName: 'Levy', percentage: 2.5, inclusive: true });
      await archive(`/v1/tax_rates/${vat.id}`);
      assert.deepEqual((await update({ taxRateIds: [levy.id, vat.id] })).body.taxRateIds, [levy.id, vat.id]);
      assert.deepEqual((await read(`/v1/invoices/upcoming?subscriptionId=${sub.id}`)).taxes.map((t: any) => [t.taxRateId, t.amountCents]), [[levy.id, 2439], [vat.id, 17561]]);
      assert.deepEqual(refusal(await update({ taxRateIds: [levy.id, vat.id, 'txr_000000000000000000000000'] })), [409, 'tax_rate_invalid']);
      assert.deepEqual((await update({ taxRateIds: [] })).body.taxRateIds, []);
      const untaxed = await read(`/v1/invoices/upcoming?subscriptionId=${sub.id}`);
      assert.deepEqual([untaxed.taxes, untaxed.taxCents, untaxed.totalCents], [[], 0, 100000]);
      // Once dropped, an archived rate cannot come back.
      assert.deepEqual(refusal(await update({ taxRateIds: [vat.id] })), [409, 'tax_rate_invalid']);
    });

    it('an update with always_invoice takes the coupon and rates sent with it', async () => {
      const sub = (await subscribe({})).body;
      const bigger = await post('/v1/prices', { product: { name: 'Team plan' }, unitAmountCents: 200000, interval: 'month' });
      const coupon = await post('/v1/coupons', { amountOffCents: 10000, duration: 'once' });
      const vat = await post('/v1/tax_rates', { displayName: 'VAT', percentage: 18, inclusive: false });
      const updated = (await send(`/v1/subscriptions/${sub.id}`, { priceId: bigger.id, prorationBehavior: 'always_invoice', couponId: coupon.id, taxRateIds: [vat.id] })).body;
      const invoice = await read(`/v1/invoices/${updated.latestInvoiceId}`);
      assert.equal(invoice.billingReason, 'subscription_update');
      const net = invoice.subtotalCents - 10000;
      assert.deepEqual([invoice.discountCents, invoice.couponId, invoice.taxCents, invoice.totalCents], [10000, coupon.id, Math.round(net * 0.18), net + Math.round(net * 0.18)]);
      // The once coupon was used by that invoice.
      assert.equal(updated.discount, null);
    });

    it('POST /v1/invoices takes a coupon, counted', async () => {
      const coupon = await post('/v1/coupons', { percentOff: 10, duration: 'once' });
      const invoice = await post('/v1/invoices', { customerId: customer.id, couponId: coupon.id });
      assert.deepEqual([invoice.couponId, invoice.discountCents], [coupon.id, 0]);
      assert.equal((await read(`/v1/coupons/${coupon.id}`)).timesRedeemed, 1);
    });

    it('race: a coupon of one redemption, three subscriptions made at once: one made, two 409 (five rounds)', async () => {
      for (let round = 0; round < 5; round++) {
        const coupon = await post('/v1/coupons', { percentOff: 10, duration: 'forever', maxRedemptions: 1 });
        const answers = await Promise.all([1, 2, 3].map(() => subscribe({ couponId: coupon.id })));
        assert.deepEqual(answers.map(refusal).sort(), [[201, undefined], [409, 'coupon_invalid'], [409, 'coupon_invalid']].sort(), `round ${round}`);
        const after = await read(`/v1/coupons/${coupon.id}`);
        assert.deepEqual([after.timesRedeemed, after.valid], [1, false]);
        assert.equal((await api.knex('subscriptions').whereRaw("discount->>'couponId' = ?", [coupon.id])).length, 1);
      }
    });
  });
});
