// Proration (DESIGN.md "Proration"): an amount for part of a period, by the second, rounded to the
// nearest cent, half away from zero. Exact in integers: cents times seconds can pass 2^53.

const SECOND_MS = 1000;

/** `cents` for `partMs` of a period `wholeMs` long, counted in whole seconds. */
export function prorate(cents: number, partMs: number, wholeMs: number): number {
  const whole = BigInt(Math.floor(wholeMs / SECOND_MS));
  if (whole <= 0n) throw new RangeError(`a period of ${wholeMs} ms`);
  const part = BigInt(Math.max(0, Math.floor(partMs / SECOND_MS)));
  const product = BigInt(Math.abs(cents)) * (part > whole ? whole : part);
  const rounded = (2n * product + whole) / (2n * whole);
  return Number(rounded) * (cents < 0 ? -1 : 1);
}

// The account's proration setting (DESIGN.md "Proration": by the second, the default, or by the
// day), for the part period up to a billing cycle anchor; the same rounding as `prorate`.

export const PRORATION_UNITS = ['second', 'day'] as const;
export type ProrationUnit = (typeof PRORATION_UNITS)[number];

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * `prorate` counted in the account's unit. By the day the part is counted in whole days, rounded
 * down, and the whole in days (to the nearest: a period of Sri Lankan calendar days, which has no
 * daylight saving, is a whole number of them).
 */
export function prorateIn(unit: ProrationUnit, cents: number, partMs: number, wholeMs: number): number {
  if (unit === 'second') return prorate(cents, partMs, wholeMs);
  const wholeDays = Math.max(1, Math.round(wholeMs / DAY_MS));
  const partDays = Math.floor(Math.max(0, partMs) / DAY_MS);
  return prorate(cents, partDays * DAY_MS, wholeDays * DAY_MS);
}
