// Archive a coupon (DELETE /v1/coupons/{id}): `valid` false, it is applied no more; the discounts
// it already gave go on. Archiving an archived coupon changes nothing.
import { archiveCoupon as markArchived, type CouponRow } from '../../db/coupons';
import type { ServiceContext } from '../context';

export function archiveCoupon(ctx: Pick<ServiceContext, 'db' | 'clock'>, coupon: CouponRow): Promise<CouponRow> {
  return markArchived(ctx.db, coupon.id, ctx.clock.now());
}
