// The public Coupon object: `valid` as it is at `now` (wall time; redeem-by passes by itself).
import type { CouponRow } from '../db/coupons';
import { couponRefusal, type CouponDuration } from '../domain/coupons';
import type { CouponTerms } from '../domain/invoice-arithmetic';
import { centsFromDb } from '../domain/money';
import { timestamp } from '../domain/time';

/** The coupon's state as domain/coupons.ts judges it. */
export const couponState = (row: CouponRow) => ({ archived: row.archived_at !== null, maxRedemptions: row.max_redemptions, timesRedeemed: row.times_redeemed, redeemBy: row.redeem_by });

/** The coupon's terms, as a discount copies them. */
export function couponTerms(row: CouponRow): CouponTerms & { duration: CouponDuration; durationInMonths: number | null } {
  return {
    id: row.id,
    percentOff: row.percent_off === null ? null : Number(row.percent_off),
    amountOffCents: row.amount_off_cents === null ? null : centsFromDb(row.amount_off_cents),
    duration: row.duration,
    durationInMonths: row.duration_in_months,
  };
}

export function couponView(row: CouponRow, now: Date) {
  const terms = couponTerms(row);
  return {
    object: 'coupon' as const,
    id: row.id,
    mode: row.mode,
    name: row.name,
    percentOff: terms.percentOff,
    amountOffCents: terms.amountOffCents,
    duration: row.duration,
    durationInMonths: row.duration_in_months,
    maxRedemptions: row.max_redemptions,
    timesRedeemed: row.times_redeemed,
    redeemBy: timestamp(row.redeem_by),
    valid: couponRefusal(couponState(row), now) === null,
    createdAt: row.created_at.toISOString(),
  };
}
