// Apply a coupon (a subscription's `couponId`, or an invoice's): counted in `timesRedeemed` in the
// caller's transaction, only if the coupon is the caller's, of this mode and valid at this wall
// time; else 409 coupon_invalid saying why (an unknown or another account's coupon alike, so the
// answer tells nothing of other accounts').
import { findCoupon, redeemCoupon, type CouponRow } from '../../db/coupons';
import { couponRefusal } from '../../domain/coupons';
import { ApiError } from '../../domain/errors';
import { couponState } from '../../views/coupon';
import type { Mode } from '../../domain/api-keys';
import type { ServiceContext } from '../context';

const WHY = {
  archived: 'is archived',
  used_up: 'is used up (timesRedeemed has reached maxRedemptions)',
  expired: 'is past its redeemBy date',
} as const;

/** `owner`: the account and mode of what the coupon is applied to. */
export async function applyCoupon(ctx: Pick<ServiceContext, 'db' | 'clock'>, owner: { accountId: string; mode: Mode }, couponId: string): Promise<CouponRow> {
  const now = ctx.clock.now();
  const redeemed = await redeemCoupon(ctx.db, couponId, owner, now);
  if (redeemed !== undefined) return redeemed;
  const coupon = await findCoupon(ctx.db, couponId);
  const invalid = (why: string) => new ApiError('coupon_invalid', `The coupon ${couponId} ${why}.`, { fields: [{ path: 'couponId', message: why }] });
  if (coupon === undefined || coupon.account_id !== owner.accountId) throw invalid('is not a coupon of yours');
  if (coupon.mode !== owner.mode) throw invalid(`is a ${coupon.mode} coupon: use a ${coupon.mode} key, or a ${owner.mode} coupon`);
  throw invalid(WHY[couponRefusal(couponState(coupon), now) ?? 'used_up']);
}

