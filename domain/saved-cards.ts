// Saved cards' schedules, shared by their services and workflows: how often a charge's workflow
// asks the processor for the outcome, and when card.expiring goes out (docs/reference/cards.md).
import { colomboMonth } from './time';

/** The newest this many active cards make GET /v1/cards: one list, no pages (the spec's Limits). */
export const SAVED_CARD_LIST_SIZE = 200;

const CHARGE_FIRST_POLL_MS = 5_000;
const CHARGE_POLL_CAP_MS = 60 * 60 * 1000;

/**
 * How long a saved-card charge's workflow waits before asking the processor the `asked`-th time
 * (from 0): 5 s, then doubling to an hour, so a quick bank answer is seen at once and a charge the
 * processor sits on costs a question an hour.
 */
export function chargePollDelayMs(asked: number): number {
  return Math.min(CHARGE_FIRST_POLL_MS * 2 ** asked, CHARGE_POLL_CAP_MS);
}

/** The card.expiring sweep runs on the 1st of each month at this hour, Sri Lankan time. */
const EXPIRING_SWEEP_HOUR = 9;

/** The sweep of the month (Sri Lankan time) that `at` falls in: the 1st at 09:00. */
export function expiringSweepAt(at: Date): Date {
  return new Date(colomboMonth(at).start.getTime() + EXPIRING_SWEEP_HOUR * 60 * 60 * 1000);
}

/** The sweep after `sweepAt`: the 1st of the next month at 09:00. */
export function nextExpiringSweepAt(sweepAt: Date): Date {
  return expiringSweepAt(colomboMonth(sweepAt).end);
}

/**
 * The expiry month a sweep tells about: the month after the sweep's. (A sweep's instant, 03:30
 * UTC on the 1st, falls in the same month in UTC as in Sri Lanka.)
 */
export function expiringMonthOf(sweepAt: Date): { year: number; month: number } {
  const next = new Date(Date.UTC(sweepAt.getUTCFullYear(), sweepAt.getUTCMonth() + 1, 1));
  return { year: next.getUTCFullYear(), month: next.getUTCMonth() + 1 };
}
