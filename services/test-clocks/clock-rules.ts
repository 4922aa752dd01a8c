// The rules of a test clock's times (DESIGN.md, "Test clocks"): a new clock's time within two
// years of now, past or future; an advance later than the clock's time and at most two years on.
import { periodBoundary } from '../../domain/billing-periods';
import { ApiError } from '../../domain/errors';

const TWO_YEARS = { interval: 'year', intervalCount: 2 } as const;

const dateRefusal = (message: string) => new ApiError('billing_date_invalid', message, { fields: [{ path: 'frozenTime', message }] });

export function frozenTimeRefusal(frozenTime: Date, now: Date): ApiError | null {
  const earliest = periodBoundary(now, TWO_YEARS, -1);
  const latest = periodBoundary(now, TWO_YEARS, 1);
  if (frozenTime < earliest || frozenTime > latest) return dateRefusal(`A clock's time is within two years of now: from ${earliest.toISOString()} to ${latest.toISOString()}.`);
  return null;
}

export function advanceRefusal(target: Date, clockTime: Date): ApiError | null {
  const latest = periodBoundary(clockTime, TWO_YEARS, 1);
  if (target <= clockTime) return dateRefusal(`An advance goes forward: after the clock's time, ${clockTime.toISOString()}.`);
  if (target > latest) return dateRefusal(`An advance goes at most two years on: up to ${latest.toISOString()}.`);
  return null;
}
