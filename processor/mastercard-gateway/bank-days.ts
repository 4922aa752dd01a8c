// When a live refund is expected to reach the card: Sri Lankan banks send refunds on with the
// next bank working day's settlement. Kept simple on purpose: a working day is Monday to Friday in
// Sri Lanka's time (UTC+05:30, no daylight saving); public and bank holidays are not counted, so
// a refund asked for before one may arrive a day after `expectedAt`, and is then asked again.
const COLOMBO_OFFSET_MS = (5 * 60 + 30) * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** 00:00 in Colombo of the first Monday-to-Friday day after the Colombo day of `at`. */
export function nextBankWorkingDay(at: Date): Date {
  const local = new Date(at.getTime() + COLOMBO_OFFSET_MS);
  let day = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate()) + DAY_MS;
  while ([0, 6].includes(new Date(day).getUTCDay())) day += DAY_MS;
  return new Date(day - COLOMBO_OFFSET_MS);
}
