// Period boundaries in Sri Lankan time and the dunning ladder, with every instant written out.
// Colombo is UTC+05:30: 10:00 there is 04:30Z, and midnight there is 18:30Z the day before.
import assert from 'node:assert/strict';
import { periodAt, periodBoundary, trialEndAfterDays, type Recurrence } from '../../domain/billing-periods';
import { LADDER_ATTEMPTS, nextAttemptAt } from '../../domain/dunning';

const monthly: Recurrence = { interval: 'month', intervalCount: 1 };
const boundaries = (anchor: string, recurrence: Recurrence, count: number) =>
  Array.from({ length: count }, (_, n) => periodBoundary(new Date(anchor), recurrence, n).toISOString());

describe('billing periods (Sri Lankan time)', () => {
  it('a monthly cycle anchored on 31 January: 28 February (29 in 2028, a leap year), then 31 March, 30 April, 31 May', () => {
    assert.deepEqual(boundaries('2027-01-31T04:30:00.000Z', monthly, 5), [
      '2027-01-31T04:30:00.000Z',
      '2027-02-28T04:30:00.000Z',
      '2027-03-31T04:30:00.000Z',
      '2027-04-30T04:30:00.000Z',
      '2027-05-31T04:30:00.000Z',
    ]);
    assert.equal(periodBoundary(new Date('2028-01-31T04:30:00.000Z'), monthly, 1).toISOString(), '2028-02-29T04:30:00.000Z');
  });

  it('the calendar day is the Sri Lankan one: 00:15 on 31 January in Colombo is 18:45Z on the 30th', () => {
    // Anchored at 00:15 on 31 Jan local: its months end on the last day of short months, local.
    assert.deepEqual(boundaries('2027-01-30T18:45:00.000Z', monthly, 3), ['2027-01-30T18:45:00.000Z', '2027-02-27T18:45:00.000Z', '2027-03-30T18:45:00.000Z']);
  });

  it('yearly from 29 February: 28 February in common years, 29 February again in the next leap year', () => {
    assert.deepEqual(boundaries('2028-02-29T04:30:00.000Z', { interval: 'year', intervalCount: 1 }, 5), [
      '2028-02-29T04:30:00.000Z',
      '2029-02-28T04:30:00.000Z',
      '2030-02-28T04:30:00.000Z',
      '2031-02-28T04:30:00.000Z',
      '2032-02-29T04:30:00.000Z',
    ]);
  });

  it('every 3 months, across a year end; every 2 weeks and every 10 days in exact days', () => {
    assert.deepEqual(boundaries('2026-11-30T04:30:00.000Z', { interval: 'month', intervalCount: 3 }, 3), ['2026-11-30T04:30:00.000Z', '2027-02-28T04:30:00.000Z', '2027-05-30T04:30:00.000Z']);
    assert.deepEqual(boundaries('2026-12-25T04:30:00.000Z', { interval: 'week', intervalCount: 2 }, 3), ['2026-12-25T04:30:00.000Z', '2027-01-08T04:30:00.000Z', '2027-01-22T04:30:00.000Z']);
    assert.deepEqual(boundaries('2026-12-25T04:30:00.000Z', { interval: 'day', intervalCount: 10 }, 2), ['2026-12-25T04:30:00.000Z', '2027-01-04T04:30:00.000Z']);
  });

  it('the period containing an instant: start inclusive, end exclusive, far from the anchor as well', () => {
    const anchor = new Date('2027-01-31T04:30:00.000Z');
    const at = (iso: string) => {
      const p = periodAt(anchor, monthly, new Date(iso));
      return [p.index, p.start.toISOString(), p.end.toISOString()];
    };
    assert.deepEqual(at('2027-02-28T04:30:00.000Z'), [1, '2027-02-28T04:30:00.000Z', '2027-03-31T04:30:00.000Z']);
    assert.deepEqual(at('2027-02-28T04:29:59.999Z'), [0, '2027-01-31T04:30:00.000Z', '2027-02-28T04:30:00.000Z']);
    assert.deepEqual(at('2037-01-01T00:00:00.000Z'), [119, '2036-12-31T04:30:00.000Z', '2037-01-31T04:30:00.000Z']);
    assert.deepEqual(at('2026-12-31T04:30:00.000Z'), [-1, '2026-12-31T04:30:00.000Z', '2027-01-31T04:30:00.000Z']);
  });

  it('a trial of n days ends n × 24 hours later', () => {
    assert.equal(trialEndAfterDays(new Date('2027-02-26T04:30:00.000Z'), 3).toISOString(), '2027-03-01T04:30:00.000Z');
  });
});

describe('the dunning ladder', () => {
  const firstDecline = new Date('2027-03-01T04:30:00.000Z');
  it('retries on days 1, 3, 7 and 14 after the first decline, then stops', () => {
    const ladder = Array.from({ length: LADDER_ATTEMPTS }, (_, i) => nextAttemptAt(firstDecline, i + 1)?.toISOString() ?? null);
    assert.deepEqual(ladder, ['2027-03-02T04:30:00.000Z', '2027-03-04T04:30:00.000Z', '2027-03-08T04:30:00.000Z', '2027-03-15T04:30:00.000Z', null]);
  });
  it('has no attempt before the first decline', () => {
    assert.throws(() => nextAttemptAt(firstDecline, 0), RangeError);
  });
});
