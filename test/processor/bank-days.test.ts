// A live refund's expected day: the next Monday-to-Friday day in Sri Lanka's time (UTC+05:30).
import assert from 'node:assert/strict';
import { nextBankWorkingDay } from '../../processor/mastercard-gateway/bank-days';

const next = (iso: string) => nextBankWorkingDay(new Date(iso)).toISOString();

describe('the next bank working day (Sri Lanka)', () => {
  it('is the next day at 00:00 in Colombo from Monday to Thursday', () => {
    assert.equal(next('2026-11-23T04:30:00.000Z'), '2026-11-23T18:30:00.000Z'); // Mon 10:00 → Tue
    assert.equal(next('2026-11-26T18:29:59.000Z'), '2026-11-26T18:30:00.000Z'); // Thu 23:59:59 → Fri
  });

  it('skips the weekend, by Colombo\'s date (not UTC\'s)', () => {
    assert.equal(next('2026-11-26T18:30:00.000Z'), '2026-11-29T18:30:00.000Z'); // Fri 00:00 → Mon
    assert.equal(next('2026-11-27T20:00:00.000Z'), '2026-11-29T18:30:00.000Z'); // Sat 01:30 (Fri in UTC) → Mon
    assert.equal(next('2026-11-29T12:00:00.000Z'), '2026-11-29T18:30:00.000Z'); // Sun 17:30 → Mon
  });
});
