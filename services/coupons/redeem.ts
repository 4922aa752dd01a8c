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

type Owner = { accountId: string; mode: Mode };

const WHY = {
  archived: 'is archived',
  used_up: 'is used up (timesRedeemed has reached maxRedemptions)',
  expired: 'is past its redeemBy date',
} as const;

/** Why `coupon` may not be applied for `owner` at `now`, as the answer says it; null when it may. */
function refusal(couponId: string, coupon: CouponRow | undefined, owner: Owner, now: Date): ApiError | null {
  const invalid = (why: string) => new ApiError('coupon_invalid', `The coupon ${couponId} ${why}.`, { fields: [{ path: 'couponId', message: why }] });
  if (coupon === undefined || coupon.account_id !== owner.accountId) return invalid('is not a coupon of yours');
  if (coupon.mode !== owner.mode) return invalid(`is a ${coupon.mode} coupon: use a ${coupon.mode} key, or a ${owner.mode} coupon`);
  const why = couponRefusal(couponState(coupon), now);
  return why === null ? null : invalid(WHY[why]);
}

/**
 * The coupon, if it may be applied now (read, not counted: applyCoupon counts it, as late in the
 * transaction as the caller can, so its row is locked for as short a time as can be).
 */
export async function validCoupon(ctx: Pick<ServiceContext, 'db' | 'clock'>, owner: Owner, couponId: string): Promise<CouponRow> {
  const coupon = await findCoupon(ctx.db, couponId);
  const refused = refusal(couponId, coupon, owner, ctx.clock.now());
  if (refused !== null) throw refused;
  return coupon!;
}

/** `owner`: the account and mode of what the coupon is applied to. */
export async function applyCoupon(ctx: Pick<ServiceContext, 'db' | 'clock'>, owner: Owner, couponId: string): Promise<CouponRow> {
  const now = ctx.clock.now();
  const redeemed = await redeemCoupon(ctx.db, couponId, owner, now);
  if (redeemed !== undefined) return redeemed;
  // Used up by another application since it was read, or invalid from the start.
  throw refusal(couponId, await findCoupon(ctx.db, couponId), owner, now) ?? refusal(couponId, undefined, owner, now)!;
}
