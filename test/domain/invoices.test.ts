// Invoice numbers, totals and a subscription period's lines, with the cents written out.
import assert from 'node:assert/strict';
import { invoiceAmounts } from '../../domain/invoice-arithmetic';
import { addedLines, amountDueSettlement, carriedLine, invoiceNumber, periodLines, trialLines } from '../../domain/invoices';
import { periodFrom } from '../../domain/billing-periods';
import type { PriceTerms } from '../../domain/pricing';
import { prorate } from '../../domain/proration';

describe('invoices: numbers, totals and period lines', () => {
  it('numbers read INV- and six digits at least', () => {
    assert.deepEqual([invoiceNumber(1), invoiceNumber(42), invoiceNumber(1_234_567)], ['INV-000001', 'INV-000042', 'INV-1234567']);
    assert.throws(() => invoiceNumber(0), RangeError);
  });

  it('a period bills each item in advance: per unit, package and graduated, exact amounts', () => {
    const period = { start: new Date('2027-01-31T04:30:00.000Z'), end: new Date('2027-02-28T04:30:00.000Z') };
    const lines = periodLines(
      [
        { priceId: 'price_pro', productName: 'Pro plan', quantity: 3, terms: { billingScheme: 'per_unit', unitAmountCents: 150_000, tiersMode: null, tiers: null, packageSize: null, usageType: 'licensed' } },
        { priceId: 'price_sms', productName: 'SMS bundle', quantity: 11, terms: { billingScheme: 'package', unitAmountCents: 2_500, tiersMode: null, tiers: null, packageSize: 10, usageType: 'licensed' } },
      ],
      period,
    );
    assert.deepEqual(lines, [
      { description: '3 × Pro plan', quantity: 3, unitAmountCents: 150_000, amountCents: 450_000, periodStart: '2027-01-31T04:30:00.000Z', periodEnd: '2027-02-28T04:30:00.000Z', proration: false, priceId: 'price_pro' },
      { description: '11 × SMS bundle', quantity: 11, unitAmountCents: 455, amountCents: 5_000, periodStart: '2027-01-31T04:30:00.000Z', periodEnd: '2027-02-28T04:30:00.000Z', proration: false, priceId: 'price_sms' },
    ]);
    assert.deepEqual(invoiceAmounts(lines), { subtotalCents: 455_000, discountCents: 0, couponId: null, taxes: [], taxCents: 0, totalCents: 455_000, creditAppliedCents: 0, creditNotesCents: 0, amountDueCents: 455_000 });
  });
});

describe('proration and cut periods', () => {
  it('prorates by the whole second, rounding half away from zero, exact past 2^53', () => {
    assert.equal(prorate(150000, 15 * 86400_000, 31 * 86400_000), 72581);
    assert.equal(prorate(-150000, 15 * 86400_000, 31 * 86400_000), -72581);
    assert.equal(prorate(3, 1000, 2000), 2, '1.5 rounds up');
    assert.equal(prorate(-3, 1000, 2000), -2, '-1.5 rounds away from zero');
    assert.equal(prorate(100, 1999, 4000), 25, 'a part second does not count');
    assert.equal(prorate(100, 5000, 4000), 100, 'never more than the whole');
    assert.equal(prorate(9_000_000_000_000, 31_536_000_000 - 1000, 31_536_000_000), 8_999_999_714_612);
    assert.throws(() => prorate(100, 0, 999), RangeError);
  });

  it('a period cut at cancelAt bills its part, marked proration; one not cut bills the whole', () => {
    const monthly = { interval: 'month' as const, intervalCount: 1 };
    const anchor = new Date('2027-01-31T04:30:00.000Z');
    const cut = periodFrom(anchor, monthly, new Date('2027-02-28T04:30:00.000Z'), new Date('2027-03-15T04:30:00.000Z'));
    assert.deepEqual([cut.end.toISOString(), cut.fullEnd?.toISOString()], ['2027-03-15T04:30:00.000Z', '2027-03-31T04:30:00.000Z']);
    const item = { priceId: 'price_pro', productName: 'Pro plan', quantity: 2, terms: { billingScheme: 'per_unit' as const, unitAmountCents: 150000 } as PriceTerms };
    assert.deepEqual(periodLines([item], cut).map((l) => [l.amountCents, l.unitAmountCents, l.proration]), [[145161, 72581, true]]);
    const whole = periodFrom(anchor, monthly, new Date('2027-02-28T04:30:00.000Z'), new Date('2027-04-30T00:00:00.000Z'));
    assert.deepEqual([whole.end.toISOString(), whole.fullEnd], ['2027-03-31T04:30:00.000Z', undefined]);
    assert.deepEqual(periodLines([item], whole).map((l) => [l.amountCents, l.unitAmountCents, l.proration]), [[300000, 150000, false]]);
    // From inside the cycle's period (a cancelAt withdrawn after it cut the period before): the
    // rest of it, 16 of the period's 31 days, its share of a whole period.
    const rest = periodFrom(anchor, monthly, new Date('2027-03-15T04:30:00.000Z'), null);
    assert.deepEqual([rest.end.toISOString(), rest.fullEnd?.toISOString()], ['2027-03-31T04:30:00.000Z', '2027-04-15T04:30:00.000Z']);
    assert.deepEqual(periodLines([item], rest).map((l) => [l.amountCents, l.proration]), [[300000 - 145161, true]]);
  });

  it('one-off lines and a trial\'s lines', () => {
    assert.deepEqual(addedLines([{ description: 'Credit', unitAmountCents: -5000, quantity: 3 }]), [{ description: 'Credit', quantity: 3, unitAmountCents: -5000, amountCents: -15000, periodStart: null, periodEnd: null, proration: false, priceId: null }]);
    const trial = { start: new Date('2027-01-01T00:00:00.000Z'), end: new Date('2027-01-15T00:00:00.000Z') };
    const [line] = trialLines([{ priceId: 'price_pro', productName: 'Pro plan', quantity: 1, terms: { billingScheme: 'per_unit', unitAmountCents: 1000 } as PriceTerms }], trial);
    assert.deepEqual([line!.description, line!.amountCents, line!.periodEnd, line!.priceId], ['Trial period for Pro plan', 0, '2027-01-15T00:00:00.000Z', 'price_pro']);
  });
});

describe('amounts due below a card payment\'s minimum', () => {
  it('an amount due is charged from 1000 cents, paid at once at 0, and carried over from 1 to 999', () => {
    assert.deepEqual(
      [0, 1, 999, 1000, 100_000_000].map((cents) => [cents, amountDueSettlement(cents)]),
      [[0, 'paid'], [1, 'carry_over'], [999, 'carry_over'], [1000, 'charge'], [100_000_000, 'charge']],
    );
    for (const bad of [-1, 0.5, Number.NaN]) assert.throws(() => amountDueSettlement(bad), RangeError);
  });

  it('an amount carried over is a line of its own: the source invoice named, no price, no period, not a proration, neither discounted nor taxed again', () => {
    assert.deepEqual(carriedLine('INV-000007', 999), {
      description: 'Carried over from invoice INV-000007 (below the card payment minimum)',
      quantity: 1,
      unitAmountCents: 999,
      amountCents: 999,
      periodStart: null,
      periodEnd: null,
      proration: false,
      priceId: null,
      discountable: false,
      taxable: false,
    });
    assert.deepEqual(invoiceAmounts([carriedLine('INV-000001', 500), carriedLine('INV-000002', 500)]).amountDueCents, 1000);
  });
});
