// Coupons' pure rules (DESIGN.md "Adjustments and usage: the resources", fine print "Coupons"):
// their terms' limits, when one is valid (may be applied), and which invoices a subscription's
// discount covers. A coupon is never edited, so a subscription keeps a copy of its terms with when
// it was applied (SubscriptionDiscount): its invoices, previews alike, read only that.
import { periodBoundary } from './billing-periods';
import type { CouponTerms, InvoiceAdjustments, TaxRateTerms } from './invoice-arithmetic';
import type { InvoiceLine } from './invoices';

export const COUPON_DURATIONS = ['once', 'repeating', 'forever'] as const;
export type CouponDuration = (typeof COUPON_DURATIONS)[number];

export const COUPON_LIMITS = { nameMax: 40, maxAmountOffCents: 100_000_000, maxDurationInMonths: 36, maxRedemptions: 1_000_000 } as const;

export interface CouponState {
  archived: boolean;
  maxRedemptions: number | null;
  timesRedeemed: number;
  redeemBy: Date | null;
}

/** Why the coupon may not be applied at `now` (wall time), or null when it may: archived, used up, past its redeem-by date. */
export function couponRefusal(coupon: CouponState, now: Date): 'archived' | 'used_up' | 'expired' | null {
  if (coupon.archived) return 'archived';
  if (coupon.maxRedemptions !== null && coupon.timesRedeemed >= coupon.maxRedemptions) return 'used_up';
  if (coupon.redeemBy !== null && coupon.redeemBy.getTime() <= now.getTime()) return 'expired';
  return null;
}

/**
 * A subscription's discount: the coupon's terms as applied, `start` when applied (in the
 * customer's time), `end` when a repeating one stops covering periods (null for once and forever).
 */
export interface SubscriptionDiscount {
  couponId: string;
  start: string;
  end: string | null;
  duration: CouponDuration;
  percentOff: number | null;
  amountOffCents: number | null;
}

/** The discount a coupon makes when applied at `at`. */
export function discountFrom(coupon: CouponTerms & { duration: CouponDuration; durationInMonths: number | null }, at: Date): SubscriptionDiscount {
  const end = coupon.duration === 'repeating' ? periodBoundary(at, { interval: 'month', intervalCount: coupon.durationInMonths! }, 1).toISOString() : null;
  return { couponId: coupon.id, start: at.toISOString(), end, duration: coupon.duration, percentOff: coupon.percentOff, amountOffCents: coupon.amountOffCents };
}

/**
 * The coupon a subscription's invoice for a period starting at `periodStart` with `lines` takes,
 * and the subscription's discount after that invoice (the same object when unchanged).
 * `repeating`: the invoices of periods that start before its end; the first period starting at or
 * after it ends it. `once`: the next invoice with something to discount (discountable lines above
 * 0: a trial's invoice of nothing leaves it for the first paid one), then it ends. `forever`:
 * every invoice.
 */
export function invoiceDiscount(discount: SubscriptionDiscount | null, periodStart: Date, lines: readonly InvoiceLine[]): { coupon: CouponTerms | null; after: SubscriptionDiscount | null } {
  if (discount === null) return { coupon: null, after: null };
  const coupon = { id: discount.couponId, percentOff: discount.percentOff, amountOffCents: discount.amountOffCents };
  switch (discount.duration) {
    case 'forever':
      return { coupon, after: discount };
    case 'repeating':
      return periodStart.getTime() < Date.parse(discount.end!) ? { coupon, after: discount } : { coupon: null, after: null };
    case 'once': {
      const discountableCents = lines.reduce((sum, line) => sum + (line.discountable === false ? 0 : line.amountCents), 0);
      return discountableCents > 0 ? { coupon, after: null } : { coupon: null, after: discount };
    }
  }
}

/** Whether two discounts are the same application of a coupon (as read back from the row, or not). */
export function sameDiscount(a: SubscriptionDiscount | null, b: SubscriptionDiscount | null): boolean {
  return a === null || b === null ? a === b : a.couponId === b.couponId && a.start === b.start;
}

/**
 * What a subscription's invoice for a period starting at `periodStart` with `lines` is adjusted by
 * (its coupon while the discount covers it, its tax rates), and the discount kept after it: the
 * invoice and its preview alike.
 */
export function subscriptionAdjustments(
  subscription: { discount: SubscriptionDiscount | null; tax_rates: readonly TaxRateTerms[] },
  periodStart: Date,
  lines: readonly InvoiceLine[],
): { adjustments: InvoiceAdjustments; after: SubscriptionDiscount | null } {
  const { coupon, after } = invoiceDiscount(subscription.discount, periodStart, lines);
  return { adjustments: { coupon, taxRates: subscription.tax_rates }, after };
}
