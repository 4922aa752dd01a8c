// Create a coupon (POST /v1/coupons): percent off (above 0, at most 100, two decimals) or an amount
// off, exactly one; `repeating` with its months, the others without; `redeemBy` after now (wall
// time) and within two years. The schema bounds each field; the rules across fields are here.
import { newId } from '../../crypto/ids';
import { insertCoupon, type CouponRow } from '../../db/coupons';
import { hasDecimalsAtMost, type CouponDuration } from '../../domain/coupons';
import { ApiError, type FieldError } from '../../domain/errors';
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

function problems(input: CouponInput, now: Date): FieldError[] {
  const found: FieldError[] = [];
  if ((input.percentOff === undefined) === (input.amountOffCents === undefined)) found.push({ path: 'percentOff', message: 'Send exactly one of percentOff and amountOffCents.' });
  if (input.percentOff !== undefined && !hasDecimalsAtMost(input.percentOff, 2)) found.push({ path: 'percentOff', message: 'At most two decimals.' });
  if (input.duration === 'repeating' && input.durationInMonths === undefined) found.push({ path: 'durationInMonths', message: 'Required for a repeating coupon.' });
  if (input.duration !== 'repeating' && input.durationInMonths !== undefined) found.push({ path: 'durationInMonths', message: 'Only for a repeating coupon.' });
  if (input.redeemBy !== undefined) {
    const redeemBy = new Date(input.redeemBy);
    const latest = new Date(now);
    latest.setUTCFullYear(latest.getUTCFullYear() + 2);
    if (redeemBy <= now || redeemBy > latest) found.push({ path: 'redeemBy', message: `After now and within two years: up to ${latest.toISOString()}.` });
  }
  return found;
}

export async function createCoupon(ctx: ServiceContext, scope: AccountScope, input: CouponInput): Promise<CouponRow> {
  const now = ctx.clock.now();
  const fields = problems(input, now);
  if (fields.length > 0) throw new ApiError('VALIDATION_FAILED', 'The body is not valid.', { fields });
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
