// Apply a coupon (a subscription's `couponId`, or an invoice's): counted in `timesRedeemed` in the
// caller's transaction, only if the coupon is the caller's, of this mode and valid at this wall
// time; else 409 coupon_invalid saying why (an unknown or another account's coupon alike, so the
// answer tells nothing of other accounts').
import { findCoupon, redeemCoupon, type CouponRow } from '../../db/coupons';
import { couponRefusal } from '../../domain/coupons';
import { ApiError } from '../../domain/errors';
import { couponState } from '../../views/coupon';
import type { AccountScope, ServiceContext } from '../context';

const WHY = {
  archived: 'is archived',
  used_up: 'is used up (timesRedeemed has reached maxRedemptions)',
  expired: 'is past its redeemBy date',
} as const;

export async function applyCoupon(ctx: Pick<ServiceContext, 'db' | 'clock'>, scope: AccountScope, couponId: string): Promise<CouponRow> {
  const now = ctx.clock.now();
  const redeemed = await redeemCoupon(ctx.db, couponId, { accountId: scope.account.id, mode: scope.mode }, now);
  if (redeemed !== undefined) return redeemed;
  const coupon = await findCoupon(ctx.db, couponId);
  const invalid = (why: string) => new ApiError('coupon_invalid', `The coupon ${couponId} ${why}.`, { fields: [{ path: 'couponId', message: why }] });
  if (coupon === undefined || coupon.account_id !== scope.account.id) throw invalid('is not a coupon of yours');
  if (coupon.mode !== scope.mode) throw invalid(`is a ${coupon.mode} coupon: use a ${coupon.mode} key, or a ${scope.mode} coupon`);
  throw invalid(WHY[couponRefusal(couponState(coupon), now) ?? 'used_up']);
}
