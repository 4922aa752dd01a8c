// A subscription with a 20%-off coupon repeating for 3 months, Sri Lanka's 18% VAT added on top and a
// 2.5% levy contained in the price, on a test clock, charged to a kept card: its first invoice and
// four renewals with every cent written out (the coupon covers the periods starting in its three
// months, then the discount is null), each renewal equal to the upcoming invoice read before it.
// The same with an invoice item and a credit balance (the "done when"), a credit note on the
// last invoice refunding part of it to the card. Then a `once` coupon with a trial: the trial's
// invoice of nothing leaves it for the first paid one.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { startApiWithMerchant, type TestApi } from '../support/api';
import { billingFlow } from '../invoices/billing-flow';

describe('coupons and taxes on a test clock', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  const { post, read, advance, customerWithCard, monthly, invoicesOf, chargesOf } = billingFlow(() => ({ api, keys }));

  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-10T04:30:00.000Z') })));
  after(() => api.close());

  /** What a person checks on an invoice by hand. */
  const amounts = (invoice: any) => ({
    periodStart: invoice.periodStart,
    subtotalCents: invoice.subtotalCents,
    discountCents: invoice.discountCents,
    couponId: invoice.couponId,
    taxes: invoice.taxes.map((t: any) => [t.percentage, t.inclusive, t.taxableAmountCents, t.amountCents]),
    taxCents: invoice.taxCents,
    totalCents: invoice.totalCents,
    amountDueCents: invoice.amountDueCents,
  });

  it('20% off for 3 months, VAT 18% exclusive and a 2.5% levy inclusive: five invoices, the last two without the discount', async () => {
    const { clock, customer, card } = await customerWithCard('coupon-clock@example.com', '2027-01-15T04:30:00.000Z', '01/39');
    const price = await monthly();
    const coupon = await post('/v1/coupons', { name: '20% off for 3 months', percentOff: 20, duration: 'repeating', durationInMonths: 3 });
    const vat = await post('/v1/tax_rates', { displayName: 'VAT', percentage: 18, inclusive: false });
    const levy = await post('/v1/tax_rates', { displayName: 'SSCL', percentage: 2.5, inclusive: true });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, cardId: card.id, couponId: coupon.id, taxRateIds: [vat.id, levy.id] });
    assert.deepEqual(subscription.discount, { couponId: coupon.id, start: '2027-01-15T04:30:00.000Z', end: '2027-04-15T04:30:00.000Z' });
    await api.workflows.settle();

    // 150000 − 30000 = 120000; the levy contains round(120000 × 2.5 / 102.5) = 2927; VAT is
    // 18% of the net 117073 = 21073; the total 120000 + 21073.
    const discounted = (periodStart: string) => ({
      periodStart, subtotalCents: 150000, discountCents: 30000, couponId: coupon.id, taxes: [[18, false, 117073, 21073], [2.5, true, 117073, 2927]], taxCents: 21073, totalCents: 141073, amountDueCents: 141073,
    });
    // 150000: the levy contains round(150000 × 2.5 / 102.5) = 3659; VAT 18% of 146341 = 26341.
    const full = (periodStart: string) => ({
      periodStart, subtotalCents: 150000, discountCents: 0, couponId: null, taxes: [[18, false, 146341, 26341], [2.5, true, 146341, 3659]], taxCents: 26341, totalCents: 176341, amountDueCents: 176341,
    });
    const expected = [
      discounted('2027-01-15T04:30:00.000Z'),
      discounted('2027-02-15T04:30:00.000Z'),
      discounted('2027-03-15T04:30:00.000Z'),
      full('2027-04-15T04:30:00.000Z'),
      full('2027-05-15T04:30:00.000Z'),
    ];
    for (const [i, renewal] of ['2027-02-15T04:30:00.000Z', '2027-03-15T04:30:00.000Z', '2027-04-15T04:30:00.000Z', '2027-05-15T04:30:00.000Z'].entries()) {
      const upcoming = await read(`/v1/invoices/upcoming?subscriptionId=${subscription.id}`);
      assert.deepEqual(amounts(upcoming), expected[i + 1], `the upcoming invoice before ${renewal}`);
      await advance(clock.id, new Date(Date.parse(renewal) + 60_000).toISOString());
      const made = (await invoicesOf(subscription.id))[i + 1];
      assert.deepEqual(amounts(made), amounts(upcoming), `the renewal of ${renewal} is its preview`);
      assert.deepEqual(made.lines, upcoming.lines);
    }
    const invoices = await invoicesOf(subscription.id);
    assert.deepEqual(invoices.map(amounts), expected);
    assert.deepEqual(invoices.map((i: any) => [i.status, i.amountPaidCents]), expected.map((e) => ['paid', e.totalCents]));
    for (const [i, invoice] of invoices.entries()) assert.deepEqual((await chargesOf(invoice.id)).map((c: any) => [c.status, Number(c.amount_cents)]), [['succeeded', expected[i]!.totalCents]]);
    const now = await read(`/v1/subscriptions/${subscription.id}`);
    assert.deepEqual([now.discount, now.taxRateIds], [null, [vat.id, levy.id]]);
    assert.equal((await read(`/v1/coupons/${coupon.id}`)).timesRedeemed, 1);
  });

  it('with an invoice item and a credit balance too, and a credit note on the last invoice refunding part of it to the card', async () => {
    const { clock, customer, card } = await customerWithCard('all-adjustments@example.com', '2027-01-15T04:30:00.000Z', '01/39');
    const price = await monthly();
    const coupon = await post('/v1/coupons', { name: '20% off for 3 months', percentOff: 20, duration: 'repeating', durationInMonths: 3 });
    const vat = await post('/v1/tax_rates', { displayName: 'VAT', percentage: 18, inclusive: false });
    const levy = await post('/v1/tax_rates', { displayName: 'SSCL', percentage: 2.5, inclusive: true });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, cardId: card.id, couponId: coupon.id, taxRateIds: [vat.id, levy.id] });
    await api.workflows.settle();
    const started = await read(`/v1/subscriptions/${subscription.id}`);
    assert.deepEqual([started.discount, started.taxRateIds], [{ couponId: coupon.id, start: '2027-01-15T04:30:00.000Z', end: '2027-04-15T04:30:00.000Z' }, [vat.id, levy.id]]);
    // On the February renewal: 150000 + 20000 = 170000, less 20% = 136000; the levy contains
    // round(136000 × 2.5 / 102.5) = 3317, VAT 18% of 132683 = 23883; the total 159883.
    await post('/v1/invoice_items', { customerId: customer.id, subscriptionId: subscription.id, description: 'Extra support', unitAmountCents: 20000 });
    await advance(clock.id, '2027-02-15T04:31:00.000Z');
    // On the March renewal: 50000 of credit used from the balance; 141073 − 50000 = 91073 charged.
    await post(`/v1/customers/${customer.id}/balance_transactions`, { amountCents: 50000, description: 'Goodwill' });
    const upcoming = await read(`/v1/invoices/upcoming?subscriptionId=${subscription.id}`);
    await advance(clock.id, '2027-05-15T04:31:00.000Z');
    const invoices = await invoicesOf(subscription.id);
    const row = (i: any) => [i.periodStart, i.subtotalCents, i.discountCents, i.taxes.map((t: any) => t.amountCents), i.taxCents, i.totalCents, i.creditAppliedCents, i.amountDueCents, i.amountPaidCents];
    assert.deepEqual(invoices.map(row), [
      ['2027-01-15T04:30:00.000Z', 150000, 30000, [21073, 2927], 21073, 141073, 0, 141073, 141073],
      ['2027-02-15T04:30:00.000Z', 170000, 34000, [23883, 3317], 23883, 159883, 0, 159883, 159883],
      ['2027-03-15T04:30:00.000Z', 150000, 30000, [21073, 2927], 21073, 141073, 50000, 91073, 91073],
      ['2027-04-15T04:30:00.000Z', 150000, 0, [26341, 3659], 26341, 176341, 0, 176341, 176341],
      ['2027-05-15T04:30:00.000Z', 150000, 0, [26341, 3659], 26341, 176341, 0, 176341, 176341],
    ]);
    assert.deepEqual(row(upcoming).slice(0, 8), row(invoices[2]).slice(0, 8), 'the March renewal is its preview, credit and all (but what was paid)');
    assert.deepEqual(invoices[1].lines.map((l: any) => [l.description, l.amountCents]), [['1 × Pro plan', 150000], ['Extra support', 20000]]);
    for (const [i, invoice] of invoices.entries()) assert.deepEqual((await chargesOf(invoice.id)).map((c: any) => Number(c.amount_cents)), [row(invoices[i])[7]]);

    // A credit note on the last invoice gives 76341 back to the card: its amount due is then 100000.
    const note = await post('/v1/credit_notes', { invoiceId: invoices[4].id, amountCents: 76341, reason: 'order_change' });
    assert.deepEqual([note.refundCents, note.creditCents], [76341, 0]);
    await api.clock.advance(60_000);
    await api.workflows.settle();
    const refund = await read(`/v1/refunds/${note.refundId}`);
    assert.deepEqual([refund.status, refund.amountCents], ['succeeded', 76341]);
    const last = await read(`/v1/invoices/${invoices[4].id}`);
    assert.deepEqual([last.totalCents, last.creditNotesCents, last.amountDueCents, last.amountPaidCents], [176341, 76341, 100000, 176341]);
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).discount, null, 'the coupon ended after three months');
    const balance = (await read(`/v1/customers/${customer.id}/balance_transactions`)).data;
    assert.deepEqual(balance.map((t: any) => [t.type, t.amountCents, t.endingBalanceCents, t.invoiceId]), [['applied_to_invoice', -50000, 0, invoices[2].id], ['adjustment', 50000, 50000, null]]);
  });

  it('a once coupon is kept by a renewal whose invoice items leave nothing to discount, and used by the next', async () => {
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: '2027-01-15T04:30:00.000Z' });
    const customer = await post('/v1/customers', { email: 'once-credit-item@example.com', testClockId: clock.id });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, collectionMethod: 'send_invoice' });
    const coupon = await post('/v1/coupons', { percentOff: 25, duration: 'once' });
    await post(`/v1/subscriptions/${subscription.id}`, { couponId: coupon.id });
    await post('/v1/invoice_items', { customerId: customer.id, subscriptionId: subscription.id, description: 'Refund of a lost month', unitAmountCents: -200000 });
    const upcoming = await read(`/v1/invoices/upcoming?subscriptionId=${subscription.id}`);
    await advance(clock.id, '2027-03-16T00:00:00.000Z');
    const invoices = await invoicesOf(subscription.id);
    // February: 150000 − 200000 = −50000, nothing to discount: the coupon waits, the 50000 go onto
    // the balance. March: 25% off 150000 = 37500; 112500 less the 50000 of credit: 62500 due.
    assert.deepEqual(invoices.slice(1).map((i: any) => [i.periodStart, i.subtotalCents, i.discountCents, i.couponId, i.totalCents, i.creditAppliedCents, i.amountDueCents]), [
      ['2027-02-15T04:30:00.000Z', -50000, 0, null, -50000, 0, 0],
      ['2027-03-15T04:30:00.000Z', 150000, 37500, coupon.id, 112500, 50000, 62500],
    ]);
    assert.deepEqual([upcoming.discountCents, upcoming.totalCents], [0, -50000]);
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).discount, null);
  });

  it('a once coupon with a 7-day trial: the trial\'s invoice of nothing keeps it, the first paid invoice uses it, the next does not', async () => {
    const { clock, customer, card } = await customerWithCard('once-trial@example.com', '2027-01-15T04:30:00.000Z', '01/39');
    const price = await monthly();
    const coupon = await post('/v1/coupons', { amountOffCents: 50000, duration: 'once' });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, cardId: card.id, couponId: coupon.id, trialDays: 7 });
    assert.deepEqual(subscription.discount, { couponId: coupon.id, start: '2027-01-15T04:30:00.000Z', end: null });
    await api.workflows.settle();
    await advance(clock.id, '2027-02-23T00:00:00.000Z');
    const invoices = await invoicesOf(subscription.id);
    assert.deepEqual(invoices.map((i: any) => [i.periodStart, i.subtotalCents, i.discountCents, i.couponId, i.totalCents]), [
      ['2027-01-15T04:30:00.000Z', 0, 0, null, 0],
      ['2027-01-22T04:30:00.000Z', 150000, 50000, coupon.id, 100000],
      ['2027-02-22T04:30:00.000Z', 150000, 0, null, 150000],
    ]);
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).discount, null);
  });
});
