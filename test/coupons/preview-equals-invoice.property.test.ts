// Property (fast-check, over HTTP on test clocks): with any coupon (percent or amount off, once,
// repeating or forever) and any tax rates (up to 3, inclusive or exclusive, four decimals), a
// subscription's previews equal the invoices they announce to the cent: the upcoming invoice and
// its renewal, twice (a repeating coupon may end between them), and POST /v1/invoices/preview of a
// change with always_invoice and the invoice that change makes.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { billingFlow } from '../invoices/billing-flow';

const START = '2027-01-31T18:30:00.000Z';

const couponArb = fc.option(
  fc.record({
    off: fc.oneof(fc.record({ percentOff: fc.integer({ min: 1, max: 10000 }).map((n) => n / 100) }), fc.record({ amountOffCents: fc.integer({ min: 1, max: 400000 }) })),
    duration: fc.constantFrom('once', 'repeating', 'forever'),
    durationInMonths: fc.integer({ min: 1, max: 2 }),
  }),
  { nil: null },
);
const ratesArb = fc.array(fc.record({ percentage: fc.integer({ min: 0, max: 300000 }).map((n) => n / 10000), inclusive: fc.boolean() }), { maxLength: 3 });
const caseArb = fc.record({
  unitAmountCents: fc.integer({ min: 1000, max: 900000 }),
  quantity: fc.integer({ min: 1, max: 5 }),
  newQuantity: fc.integer({ min: 1, max: 9 }),
  coupon: couponArb,
  rates: ratesArb,
  setUp: fc.option(fc.record({ unitAmountCents: fc.integer({ min: -50000, max: 50000 }), discountable: fc.boolean() }), { nil: null }),
});

describe('property: previews equal invoices with coupons and taxes', function () {
  this.timeout(300_000);
  let api: TestApi;
  let keys: MerchantKeys;
  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());
  const { post, read, advance, invoicesOf } = billingFlow(() => ({ api, keys }));
  const billed = (invoice: any) => [invoice.billingReason, invoice.periodStart, invoice.lines, invoice.subtotalCents, invoice.discountCents, invoice.couponId, invoice.taxes, invoice.taxCents, invoice.totalCents, invoice.amountDueCents];

  it('the upcoming invoice is each renewal, a change\'s preview its invoice', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        n += 1;
        const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: START });
        const customer = await post('/v1/customers', { email: `property-${n}@example.com`, testClockId: clock.id });
        const price = await post('/v1/prices', { product: { name: 'Plan' }, unitAmountCents: c.unitAmountCents, interval: 'month' });
        const coupon = c.coupon === null ? null : await post('/v1/coupons', { ...c.coupon.off, duration: c.coupon.duration, ...(c.coupon.duration === 'repeating' ? { durationInMonths: c.coupon.durationInMonths } : {}) });
        const rates = await Promise.all(c.rates.map((rate, i) => post('/v1/tax_rates', { displayName: `Rate ${i}`, ...rate })));
        const sub = await post('/v1/subscriptions', {
          customerId: customer.id,
          priceId: price.id,
          quantity: c.quantity,
          collectionMethod: 'send_invoice',
          ...(coupon === null ? {} : { couponId: coupon.id }),
          taxRateIds: rates.map((r) => r.id),
          ...(c.setUp === null ? {} : { addInvoiceItems: [{ description: 'Set-up', ...c.setUp }] }),
        });
        await api.workflows.settle();
        for (const [i, renewal] of ['2027-02-28T18:30:00.000Z', '2027-03-31T18:30:00.000Z'].entries()) {
          const upcoming = await read(`/v1/invoices/upcoming?subscriptionId=${sub.id}`);
          await advance(clock.id, new Date(Date.parse(renewal) + 1000).toISOString());
          assert.deepEqual(billed((await invoicesOf(sub.id))[i + 1]), billed(upcoming), `renewal ${i + 1}`);
        }
        const change = { quantity: c.newQuantity, prorationBehavior: 'always_invoice', prorationDate: '2027-04-10T00:00:00.000Z' };
        await advance(clock.id, '2027-04-10T00:00:00.000Z');
        const preview = await api.request('/v1/invoices/preview', { key: keys.sk_test, body: { subscriptionId: sub.id, ...change } });
        assert.equal(preview.status, 200, preview.text);
        const updated = await api.request(`/v1/subscriptions/${sub.id}`, { key: keys.sk_test, body: change, idempotencyKey: ik() });
        assert.equal(updated.status, 200, updated.text);
        const made = (await invoicesOf(sub.id)).at(-1);
        if (preview.body.billingReason === 'subscription_update') assert.deepEqual(billed(made), billed(preview.body), 'the change\'s invoice');
      }),
      { numRuns: 12, seed: 0x32c0 },
    );
  });
});
