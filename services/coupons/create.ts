// Create a coupon (POST /v1/coupons): percent off (above 0, at most 100, two decimals) or an amount
// off, exactly one, and `repeating` with its months, the others without (the schema's rules);
// `redeemBy` after now (wall time) and within two years (400 billing_date_invalid).
import { newId } from '../../crypto/ids';
import { insertCoupon, type CouponRow } from '../../db/coupons';
import type { CouponDuration } from '../../domain/coupons';
import { billingDateRefusal } from '../../domain/subscription-rules';
import type { AccountScope, ServiceContext } from '../context';

export interface CouponInput {
  name?: string;
  percentOff?: number;
  amountOffCents?: number;
  duration: CouponDuration;
  durationInMonths?: number;
  maxRedemptions?: number;
  redeemBy?: string;
}

export async function createCoupon(ctx: ServiceContext, scope: AccountScope, input: CouponInput): Promise<CouponRow> {
  const now = ctx.clock.now();
  // Wall time, as redeemBy is judged by (a coupon is not on any customer's clock).
  const dateRefusal = input.redeemBy === undefined ? null : billingDateRefusal('redeemBy', new Date(input.redeemBy), now);
  if (dateRefusal !== null) throw dateRefusal;
  const row: CouponRow = {
    id: newId('coupon', now.getTime()),
    account_id: scope.account.id,
    mode: scope.mode,
    name: input.name ?? null,
    percent_off: input.percentOff ?? null,
    amount_off_cents: input.amountOffCents ?? null,
    duration: input.duration,
    duration_in_months: input.durationInMonths ?? null,
    max_redemptions: input.maxRedemptions ?? null,
    times_redeemed: 0,
    redeem_by: input.redeemBy === undefined ? null : new Date(input.redeemBy),
    archived_at: null,
    created_at: now,
  };
  await insertCoupon(ctx.db, row);
  return row;
}
