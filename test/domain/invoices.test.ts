// Invoice numbers, totals and a subscription period's lines, with the cents written out.
import assert from 'node:assert/strict';
import { invoiceNumber, invoiceTotals, periodLines } from '../../domain/invoices';

describe('invoices: numbers, totals and period lines', () => {
  it('numbers read INV- and six digits at least', () => {
    assert.deepEqual([invoiceNumber(1), invoiceNumber(42), invoiceNumber(1_234_567)], ['INV-000001', 'INV-000042', 'INV-1234567']);
    assert.throws(() => invoiceNumber(0), RangeError);
  });

  it('a period bills each item in advance: per unit, package and graduated, exact amounts', () => {
    const period = { start: new Date('2027-01-31T04:30:00.000Z'), end: new Date('2027-02-28T04:30:00.000Z') };
    const lines = periodLines(
      [
        { productName: 'Pro plan', quantity: 3, terms: { billingScheme: 'per_unit', unitAmountCents: 150_000, tiersMode: null, tiers: null, packageSize: null, usageType: 'licensed' } },
        { productName: 'SMS bundle', quantity: 11, terms: { billingScheme: 'package', unitAmountCents: 2_500, tiersMode: null, tiers: null, packageSize: 10, usageType: 'licensed' } },
      ],
      period,
    );
    assert.deepEqual(lines, [
      { description: '3 × Pro plan', quantity: 3, unitAmountCents: 150_000, amountCents: 450_000, periodStart: '2027-01-31T04:30:00.000Z', periodEnd: '2027-02-28T04:30:00.000Z', proration: false },
      { description: '11 × SMS bundle', quantity: 11, unitAmountCents: 455, amountCents: 5_000, periodStart: '2027-01-31T04:30:00.000Z', periodEnd: '2027-02-28T04:30:00.000Z', proration: false },
    ]);
    assert.deepEqual(invoiceTotals(lines), { subtotalCents: 455_000, discountCents: 0, taxCents: 0, totalCents: 455_000, creditAppliedCents: 0, amountDueCents: 455_000 });
  });
});
