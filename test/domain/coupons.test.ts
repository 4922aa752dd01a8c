// The coupons' pure rules: when one is valid, when a repeating discount ends (calendar months in
// Sri Lankan time, the day clamped), and which invoices a discount covers.
import assert from 'node:assert/strict';
import { couponRefusal, discountFrom, invoiceDiscount, sameDiscount } from '../../domain/coupons';
import type { InvoiceLine } from '../../domain/invoices';

const line = (amountCents: number, discountable?: boolean): InvoiceLine => ({
  description: 'x', quantity: 1, unitAmountCents: amountCents, amountCents, periodStart: null, periodEnd: null, proration: false, priceId: null, ...(discountable === undefined ? {} : { discountable }),
});
const terms = { id: 'coupon_1', percentOff: 20, amountOffCents: null };

describe('domain/coupons', () => {
  it('a coupon is refused archived, used up, or at and after its redeemBy', () => {
    const now = new Date('2027-03-01T00:00:00.000Z');
    const fresh = { archived: false, maxRedemptions: 2, timesRedeemed: 1, redeemBy: new Date('2027-03-01T00:00:01.000Z') };
    assert.equal(couponRefusal(fresh, now), null);
    assert.equal(couponRefusal({ ...fresh, archived: true }, now), 'archived');
    assert.equal(couponRefusal({ ...fresh, timesRedeemed: 2 }, now), 'used_up');
    assert.equal(couponRefusal({ ...fresh, redeemBy: now }, now), 'expired');
    assert.equal(couponRefusal({ ...fresh, maxRedemptions: null, redeemBy: null, timesRedeemed: 1_000_000 }, now), null);
  });

  it('a repeating discount ends its months later in Colombo, the day clamped to the month: 31 January + 1 month is 28 February', () => {
    // 10:00 in Colombo on 31 January 2027.
    const discount = discountFrom({ ...terms, duration: 'repeating', durationInMonths: 1 }, new Date('2027-01-31T04:30:00.000Z'));
    assert.deepEqual(discount, { couponId: 'coupon_1', start: '2027-01-31T04:30:00.000Z', end: '2027-02-28T04:30:00.000Z', duration: 'repeating', percentOff: 20, amountOffCents: null });
    // 00:30 on 1 March in Colombo is still 28 February in UTC: the month is Colombo's.
    assert.equal(discountFrom({ ...terms, duration: 'repeating', durationInMonths: 3 }, new Date('2027-02-28T19:00:00.000Z')).end, '2027-05-31T19:00:00.000Z');
    assert.equal(discountFrom({ ...terms, duration: 'forever', durationInMonths: null }, new Date('2027-01-31T04:30:00.000Z')).end, null);
  });

  it('repeating covers the periods starting before its end; at its end it is over', () => {
    const discount = discountFrom({ ...terms, duration: 'repeating', durationInMonths: 3 }, new Date('2027-01-15T04:30:00.000Z'));
    assert.deepEqual(invoiceDiscount(discount, new Date('2027-04-15T04:29:59.999Z'), [line(150000)]), { coupon: terms, after: discount });
    assert.deepEqual(invoiceDiscount(discount, new Date('2027-04-15T04:30:00.000Z'), [line(150000)]), { coupon: null, after: null });
  });

  it('once is used by the first invoice with discountable lines above 0; forever by every one', () => {
    const once = discountFrom({ ...terms, duration: 'once', durationInMonths: null }, new Date('2027-01-15T04:30:00.000Z'));
    const at = new Date('2027-02-15T04:30:00.000Z');
    assert.deepEqual(invoiceDiscount(once, at, [line(0)]), { coupon: null, after: once });
    assert.deepEqual(invoiceDiscount(once, at, [line(150000), line(-200000)]), { coupon: null, after: once });
    assert.deepEqual(invoiceDiscount(once, at, [line(150000, false)]), { coupon: null, after: once });
    assert.deepEqual(invoiceDiscount(once, at, [line(1)]), { coupon: terms, after: null });
    const forever = discountFrom({ ...terms, duration: 'forever', durationInMonths: null }, new Date('2027-01-15T04:30:00.000Z'));
    assert.deepEqual(invoiceDiscount(forever, new Date('2037-01-15T04:30:00.000Z'), [line(0)]), { coupon: terms, after: forever });
    assert.deepEqual(invoiceDiscount(null, at, [line(150000)]), { coupon: null, after: null });
  });

  it('the same discount read back from the row is the same; another application is not', () => {
    const once = discountFrom({ ...terms, duration: 'once', durationInMonths: null }, new Date('2027-01-15T04:30:00.000Z'));
    assert.equal(sameDiscount(once, JSON.parse(JSON.stringify(once))), true);
    assert.equal(sameDiscount(once, discountFrom({ ...terms, duration: 'once', durationInMonths: null }, new Date('2027-01-16T04:30:00.000Z'))), false);
    assert.equal(sameDiscount(once, null), false);
    assert.equal(sameDiscount(null, null), true);
  });
});
