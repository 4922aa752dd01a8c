// A subscription's periods, in Sri Lankan time (UTC+05:30 all year, so a fixed offset is exact).
// Every boundary is counted from the billing cycle anchor, never from the previous boundary, the
// way Stripe bills: a monthly subscription anchored on 31 January renews on 28 February (29 in a
// leap year), then 31 March, 30 April, 31 May; a yearly one anchored on 29 February renews on
// 28 February, and on 29 February again in the next leap year. Days and weeks are exact multiples
// of 24 hours (no daylight saving in Sri Lanka). The time of day is the anchor's throughout.
import { COLOMBO_OFFSET_MS } from './time';

export const BILLING_INTERVALS = ['day', 'week', 'month', 'year'] as const;
export type BillingInterval = (typeof BILLING_INTERVALS)[number];

export interface Recurrence {
  interval: BillingInterval;
  intervalCount: number;
}

export interface Period {
  start: Date;
  end: Date;
}

/**
 * A period billed; `fullEnd`, when it is only part of its cycle's period (cut short by a `cancelAt`
 * inside it, or starting inside it), is where a whole period from its start would end: it bills
 * that share of a whole period.
 */
export interface BilledPeriod extends Period {
  fullEnd?: Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/** `months` calendar months after `at`, in Sri Lankan time, the day clamped to the month's length. */
function addMonths(at: Date, months: number): Date {
  const local = new Date(at.getTime() + COLOMBO_OFFSET_MS);
  const total = local.getUTCFullYear() * 12 + local.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const day = Math.min(local.getUTCDate(), daysInMonth(year, month));
  const timeOfDay = local.getTime() - Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate());
  return new Date(Date.UTC(year, month, day) + timeOfDay - COLOMBO_OFFSET_MS);
}

/** The `n`th period boundary after `anchor` (n = 0 is the anchor itself; n may be negative). */
export function periodBoundary(anchor: Date, recurrence: Recurrence, n: number): Date {
  const steps = n * recurrence.intervalCount;
  switch (recurrence.interval) {
    case 'day':
      return new Date(anchor.getTime() + steps * DAY_MS);
    case 'week':
      return new Date(anchor.getTime() + steps * 7 * DAY_MS);
    case 'month':
      return addMonths(anchor, steps);
    case 'year':
      return addMonths(anchor, steps * 12);
  }
}

/**
 * The period of the cycle anchored at `anchor` that contains `at` (start inclusive, end
 * exclusive), and its index (0 = the period that starts at the anchor).
 */
export function periodAt(anchor: Date, recurrence: Recurrence, at: Date): Period & { index: number } {
  // An estimate from the mean length, corrected by at most a step or two either way.
  const meanMs = { day: DAY_MS, week: 7 * DAY_MS, month: 30.436875 * DAY_MS, year: 365.2425 * DAY_MS }[recurrence.interval] * recurrence.intervalCount;
  let index = Math.floor((at.getTime() - anchor.getTime()) / meanMs);
  while (periodBoundary(anchor, recurrence, index).getTime() > at.getTime()) index--;
  while (periodBoundary(anchor, recurrence, index + 1).getTime() <= at.getTime()) index++;
  return { index, start: periodBoundary(anchor, recurrence, index), end: periodBoundary(anchor, recurrence, index + 1) };
}

/**
 * The period a subscription bills from `start` (its renewal, its trial's end): up to the next
 * boundary of the cycle anchored at `anchor`, cut at `cancelAt` when that comes first ("last period
 * billed only up to it"). A `start` inside the cycle's period (the instant of a `cancelAt` that cut
 * the period before and was then withdrawn) bills the rest of that period, its share of a whole one.
 */
export function periodFrom(anchor: Date, recurrence: Recurrence, start: Date, cancelAt: Date | null): BilledPeriod {
  const cycle = periodAt(anchor, recurrence, start);
  const end = cancelAt !== null && cancelAt.getTime() < cycle.end.getTime() ? cancelAt : cycle.end;
  const part = start.getTime() > cycle.start.getTime() || end.getTime() < cycle.end.getTime();
  return part ? { start, end, fullEnd: new Date(start.getTime() + cycle.end.getTime() - cycle.start.getTime()) } : { start, end };
}

/** The end of a trial of `days` days started at `start`: exact days of 24 hours. */
export function trialEndAfterDays(start: Date, days: number): Date {
  return new Date(start.getTime() + days * DAY_MS);
}
