// The public Coupon object: `valid` as it is at `now` (wall time; redeem-by passes by itself).
import type { CouponRow } from '../db/coupons';
import { couponRefusal } from '../domain/coupons';
import { centsFromDb } from '../domain/money';
import { timestamp } from '../domain/time';

/** The coupon's state as domain/coupons.ts judges it. */
export const couponState = (row: CouponRow) => ({ archived: row.archived_at !== null, maxRedemptions: row.max_redemptions, timesRedeemed: row.times_redeemed, redeemBy: row.redeem_by });

export function couponView(row: CouponRow, now: Date) {
  return {
    object: 'coupon' as const,
    id: row.id,
    mode: row.mode,
    name: row.name,
    percentOff: row.percent_off === null ? null : Number(row.percent_off),
    amountOffCents: row.amount_off_cents === null ? null : centsFromDb(row.amount_off_cents),
    duration: row.duration,
    durationInMonths: row.duration_in_months,
    maxRedemptions: row.max_redemptions,
    timesRedeemed: row.times_redeemed,
    redeemBy: timestamp(row.redeem_by),
    valid: couponRefusal(couponState(row), now) === null,
    createdAt: row.created_at.toISOString(),
  };
}
