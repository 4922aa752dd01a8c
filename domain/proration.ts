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
