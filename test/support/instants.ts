// Instants in scenario tests, on either engine: exact on the embedded engine, where virtual time
// stands still while anything runs; on the time-skipping server up to the clock's tolerance late
// (real milliseconds pass while workflow tasks and activities run), never early.
import assert from 'node:assert/strict';
import type { TestClock } from './api';

type Instant = Date | string | number;

const ms = (instant: Instant): number => (typeof instant === 'number' ? instant : new Date(instant).getTime());
const iso = (instant: Instant): string => new Date(ms(instant)).toISOString();

/** `actual` is `expected`, or at most the clock's tolerance later. */
export function assertInstant(clock: TestClock, actual: Instant, expected: Instant, message?: string): void {
  if (clock.toleranceMs === 0) return assert.equal(iso(actual), iso(expected), message);
  const late = ms(actual) - ms(expected);
  assert.ok(late >= 0 && late <= clock.toleranceMs, `${message ? `${message}: ` : ''}${iso(actual)} is not within ${clock.toleranceMs} ms after ${iso(expected)}`);
}

/**
 * A moment to be at while what falls due after `instant` has not happened yet: `instant` itself on
 * the embedded engine; on the server the tolerance earlier, as real time goes on while the test looks.
 */
export function ahead(clock: TestClock, instant: Instant): Date {
  return new Date(ms(instant) - clock.toleranceMs);
}

/** A moment by which what falls due at `instant` has happened. */
export function by(clock: TestClock, instant: Instant): Date {
  return new Date(ms(instant) + clock.toleranceMs);
}
