// Invoice arithmetic (DESIGN.md "Invoice arithmetic"): Sri Lanka's 18% VAT inclusive and exclusive,
// coupons, several rates, credit and credit notes, with the cents written out; then properties over
// random invoices: everything adds up to the amount due and nothing goes below zero.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { discountOf, invoiceAmounts, taxesOf, type CouponTerms, type TaxRateTerms } from '../../domain/invoice-arithmetic';
import { carriedLine, type InvoiceLine } from '../../domain/invoices';

const line = (amountCents: number, flags: Pick<InvoiceLine, 'discountable' | 'taxable'> = {}): InvoiceLine => ({
  description: 'line',
  quantity: 1,
  unitAmountCents: amountCents,
  amountCents,
  periodStart: null,
  periodEnd: null,
  proration: false,
  priceId: null,
  ...flags,
});
const VAT_EXCLUSIVE: TaxRateTerms = { id: 'txr_vat', percentage: 18, inclusive: false };
const VAT_INCLUSIVE: TaxRateTerms = { id: 'txr_vat_in', percentage: 18, inclusive: true };
const percentOff = (p: number): CouponTerms => ({ id: 'coupon_p', percentOff: p, amountOffCents: null });
const amountOff = (cents: number): CouponTerms => ({ id: 'coupon_a', percentOff: null, amountOffCents: cents });

describe('invoice arithmetic', () => {
  it('VAT at 18%: exclusive adds 18000 to 100000; inclusive contains 18000 of 118000', () => {
    const exclusive = invoiceAmounts([line(100_000)], { taxRates: [VAT_EXCLUSIVE] });
    assert.deepEqual(exclusive.taxes, [{ taxRateId: 'txr_vat', percentage: 18, inclusive: false, taxableAmountCents: 100_000, amountCents: 18_000 }]);
    assert.deepEqual([exclusive.taxCents, exclusive.totalCents, exclusive.amountDueCents], [18_000, 118_000, 118_000]);
    const inclusive = invoiceAmounts([line(118_000)], { taxRates: [VAT_INCLUSIVE] });
    assert.deepEqual(inclusive.taxes, [{ taxRateId: 'txr_vat_in', percentage: 18, inclusive: true, taxableAmountCents: 100_000, amountCents: 18_000 }]);
    assert.deepEqual([inclusive.taxCents, inclusive.totalCents], [0, 118_000], 'an inclusive tax is inside the total, not added');
  });

  it('a 20% coupon comes off before tax; the tax is rounded once per invoice, half away from zero', () => {
    // 3 × 33333 = 99999; 20% off is 19999.8 → 20000; net 79999; 18% is 14399.82 → 14400.
    const amounts = invoiceAmounts([line(33_333), line(33_333), line(33_333)], { coupon: percentOff(20), taxRates: [VAT_EXCLUSIVE] });
    assert.deepEqual([amounts.subtotalCents, amounts.discountCents, amounts.taxCents, amounts.totalCents, amounts.couponId], [99_999, 20_000, 14_400, 94_399, 'coupon_p']);
    assert.equal(discountOf(percentOff(12.5), 1), 0, '0.125 rounds to 0');
    assert.equal(discountOf(percentOff(50), 3), 2, '1.5 rounds away from zero');
    assert.equal(discountOf(percentOff(33.33), 100_000_000), 33_330_000);
  });

  it('an amount off takes at most the discountable lines; lines not discountable and credits keep their amount', () => {
    const amounts = invoiceAmounts([line(5_000), line(20_000, { discountable: false })], { coupon: amountOff(8_000) });
    assert.deepEqual([amounts.discountCents, amounts.totalCents], [5_000, 20_000]);
    assert.equal(invoiceAmounts([line(-5_000)], { coupon: percentOff(50) }).discountCents, 0, 'a credit is not discounted into a bigger credit');
  });

  it('inclusive and exclusive rates together: the exclusive one on the net amount, all with the same taxable amount', () => {
    // 118000 with 18% inclusive contains 18000; net 100000; a 2.5% exclusive levy adds 2500.
    const levy: TaxRateTerms = { id: 'txr_levy', percentage: 2.5, inclusive: false };
    const amounts = invoiceAmounts([line(118_000)], { taxRates: [VAT_INCLUSIVE, levy] });
    assert.deepEqual(amounts.taxes.map((t) => [t.taxRateId, t.taxableAmountCents, t.amountCents]), [['txr_vat_in', 100_000, 18_000], ['txr_levy', 100_000, 2_500]]);
    assert.deepEqual([amounts.taxCents, amounts.totalCents], [2_500, 120_500]);
  });

  it('two inclusive rates share the tax contained in proportion, the last taking the remainder', () => {
    const a: TaxRateTerms = { id: 'txr_a', percentage: 10, inclusive: true };
    const b: TaxRateTerms = { id: 'txr_b', percentage: 8.0001, inclusive: true };
    // 100001 × 18.0001 / 118.0001 = 15254.46… → 15254 (net 84747); a's share 15254 × 10 / 18.0001 = 8474.4… → 8474; b the rest, 6780.
    assert.deepEqual(taxesOf([a, b], 100_001).map((t) => [t.amountCents, t.taxableAmountCents]), [[8_474, 84_747], [6_780, 84_747]]);
  });

  it('an amount carried over is neither discounted nor taxed again', () => {
    const amounts = invoiceAmounts([line(100_000), carriedLine('INV-000001', 500)], { coupon: percentOff(10), taxRates: [VAT_EXCLUSIVE] });
    assert.deepEqual([amounts.discountCents, amounts.taxes[0]!.taxableAmountCents, amounts.taxCents, amounts.totalCents], [10_000, 90_000, 16_200, 106_700]);
  });

  it('credit applies up to the total; credit notes come off what is due, never below zero', () => {
    const amounts = invoiceAmounts([line(50_000)], { creditBalanceCents: 20_000, creditNotesCents: 10_000 });
    assert.deepEqual([amounts.creditAppliedCents, amounts.creditNotesCents, amounts.amountDueCents], [20_000, 10_000, 20_000]);
    const covered = invoiceAmounts([line(50_000)], { creditBalanceCents: 80_000, creditNotesCents: 10_000 });
    assert.deepEqual([covered.creditAppliedCents, covered.amountDueCents], [50_000, 0]);
    const negative = invoiceAmounts([line(-7_000)], { creditBalanceCents: 5_000, taxRates: [VAT_EXCLUSIVE] });
    assert.deepEqual([negative.taxCents, negative.totalCents, negative.creditAppliedCents, negative.amountDueCents], [-1_260, -8_260, 0, 0], 'a credit carries its VAT back');
  });

  it('properties: lines, discount, taxes and credit add up to the amount due; only the total may go below zero', () => {
    const lines = fc.array(
      fc.record({ amount: fc.integer({ min: -100_000_000, max: 100_000_000 }), discountable: fc.boolean(), taxable: fc.boolean() }).map((l) => line(l.amount, { discountable: l.discountable, taxable: l.taxable })),
      { maxLength: 12 },
    );
    const coupon = fc.option(
      fc.oneof(fc.integer({ min: 1, max: 10_000 }).map((h) => percentOff(h / 100)), fc.integer({ min: 1, max: 100_000_000 }).map(amountOff)),
      { nil: null },
    );
    const rates = fc.uniqueArray(
      fc.record({ id: fc.uuid(), percentage: fc.integer({ min: 0, max: 1_000_000 }).map((p) => p / 10_000), inclusive: fc.boolean() }),
      { maxLength: 5, selector: (r) => r.id },
    );
    fc.assert(
      fc.property(lines, coupon, rates, fc.nat(200_000_000), fc.nat(200_000_000), (ls, c, rs, credit, notes) => {
        const amounts = invoiceAmounts(ls, { coupon: c, taxRates: rs, creditBalanceCents: credit, creditNotesCents: notes });
        const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
        assert.equal(amounts.subtotalCents, sum(ls.map((l) => l.amountCents)));
        const discountable = sum(ls.filter((l) => l.discountable !== false).map((l) => l.amountCents));
        assert.ok(amounts.discountCents >= 0 && amounts.discountCents <= Math.max(0, discountable), 'the discount is within the discountable lines');
        assert.equal(amounts.taxCents, sum(amounts.taxes.filter((t) => !t.inclusive).map((t) => t.amountCents)));
        assert.equal(amounts.totalCents, amounts.subtotalCents - amounts.discountCents + amounts.taxCents);
        const taxed = amounts.subtotalCents - amounts.discountCents - sum(ls.filter((l) => l.taxable === false).map((l) => l.amountCents));
        const contained = sum(amounts.taxes.filter((t) => t.inclusive).map((t) => t.amountCents));
        for (const tax of amounts.taxes) assert.equal(tax.taxableAmountCents, taxed - contained, 'every rate taxes the same net amount');
        assert.ok(Math.abs(contained) <= Math.abs(taxed), 'an inclusive tax is at most the amount it is in');
        assert.ok(amounts.creditAppliedCents >= 0 && amounts.creditAppliedCents <= Math.max(0, amounts.totalCents) && amounts.creditAppliedCents <= credit);
        assert.equal(amounts.amountDueCents, Math.max(0, amounts.totalCents - amounts.creditAppliedCents - notes));
        assert.ok(amounts.amountDueCents >= 0);
      }),
      { numRuns: 2_000 },
    );
  });
});
