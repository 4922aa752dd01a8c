// The pure rules of anchors, proration in the account's unit and pauses of collection.
import assert from 'node:assert/strict';
import { billingCycleAnchorAt, partPeriodDeferred } from '../../domain/billing-anchor';
import { ApiError } from '../../domain/errors';
import { pauseChanges, pauseInForce } from '../../domain/pause-collection';
import { prorate, prorateIn } from '../../domain/proration';

const t = (iso: string) => new Date(iso);
const DAY = 24 * 60 * 60 * 1000;
const monthly = { interval: 'month', intervalCount: 1 } as const;
const reason = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof ApiError ? err.reason ?? err.code : err;
  }
  return null;
};

describe('proration in the account\'s unit (prorateIn)', () => {
  it('by the second is prorate itself', () => {
    for (const [part, whole] of [[1000, 31 * DAY], [16.5 * DAY, 31 * DAY], [31 * DAY, 31 * DAY]] as const) assert.equal(prorateIn('second', 150000, part, whole), prorate(150000, part, whole));
  });
  it('by the day counts whole days, the part rounded down, and rounds half away from zero', () => {
    assert.equal(prorateIn('day', 150000, 16 * DAY + 14 * 60 * 60 * 1000, 31 * DAY), 77419);
    assert.equal(prorateIn('day', 150000, DAY - 1, 31 * DAY), 0);
    assert.equal(prorateIn('day', 150000, 28 * DAY, 28 * DAY), 150000);
    assert.equal(prorateIn('day', 100, DAY, 8 * DAY), 13, '12.5 rounds up');
    assert.equal(prorateIn('day', -100, DAY, 8 * DAY), -13, 'and a credit away from zero');
  });
});

describe('billing cycle anchors (billingCycleAnchorAt)', () => {
  const now = t('2027-01-15T04:30:00.000Z');
  it('now; first_of_month is the next midnight on the 1st in Sri Lanka (now itself at that midnight), for monthly and yearly prices', () => {
    assert.equal(billingCycleAnchorAt('now', monthly, now, false), now);
    assert.equal(billingCycleAnchorAt('first_of_month', monthly, now, false).toISOString(), '2027-01-31T18:30:00.000Z');
    assert.equal(billingCycleAnchorAt('first_of_month', { interval: 'year', intervalCount: 1 }, t('2027-01-31T18:29:59.999Z'), false).toISOString(), '2027-01-31T18:30:00.000Z');
    assert.equal(billingCycleAnchorAt('first_of_month', monthly, t('2027-01-31T18:30:00.000Z'), false).toISOString(), '2027-01-31T18:30:00.000Z');
    assert.equal(reason(() => billingCycleAnchorAt('first_of_month', { interval: 'week', intervalCount: 1 }, now, false)), 'billing_cycle_anchor_invalid');
    assert.equal(reason(() => billingCycleAnchorAt('first_of_month', { interval: 'day', intervalCount: 1 }, now, false)), 'billing_cycle_anchor_invalid');
  });
  it('a time after now and at most one period ahead; never other than now with a trial', () => {
    assert.equal(billingCycleAnchorAt('2027-02-15T04:30:00.000Z', monthly, now, false).toISOString(), '2027-02-15T04:30:00.000Z');
    assert.equal(billingCycleAnchorAt('2027-01-15T04:30:00.001Z', monthly, now, false).toISOString(), '2027-01-15T04:30:00.001Z');
    for (const asked of ['2027-01-15T04:30:00.000Z', '2027-02-15T04:30:00.001Z', 'soon']) assert.equal(reason(() => billingCycleAnchorAt(asked, monthly, now, false)), 'billing_cycle_anchor_invalid', asked);
    assert.equal(reason(() => billingCycleAnchorAt('2027-01-20T00:00:00.000Z', monthly, now, true)), 'billing_cycle_anchor_invalid');
    assert.equal(billingCycleAnchorAt('now', monthly, now, true), now);
  });
  it('a part period below 1000 cents waits for the first renewal', () => {
    assert.deepEqual([0, 999, 1000].map(partPeriodDeferred), [true, true, false]);
  });
});

describe('pauses of collection', () => {
  const now = t('2027-01-15T04:30:00.000Z');
  it('in force until resumesAt (not at it), or for good without one', () => {
    const until = { pause_behavior: 'void' as const, pause_resumes_at: t('2027-03-01T00:00:00.000Z') };
    assert.equal(pauseInForce(until, t('2027-02-28T23:59:59.999Z')), 'void');
    assert.equal(pauseInForce(until, t('2027-03-01T00:00:00.000Z')), null);
    assert.equal(pauseInForce({ pause_behavior: 'keep_as_draft', pause_resumes_at: null }, t('2030-01-01T00:00:00.000Z')), 'keep_as_draft');
    assert.equal(pauseInForce({ pause_behavior: null, pause_resumes_at: null }, now), null);
  });
  it('set only while renewing; resumesAt after now within two years; null ends it whatever the status', () => {
    for (const status of ['active', 'past_due', 'unpaid'] as const) assert.deepEqual(pauseChanges('sub_1', status, { behavior: 'mark_uncollectible' }, now), { pause_behavior: 'mark_uncollectible', pause_resumes_at: null });
    for (const status of ['incomplete', 'trialing', 'paused'] as const) assert.equal(reason(() => pauseChanges('sub_1', status, { behavior: 'void' }, now)), 'subscription_change_refused', status);
    assert.equal(reason(() => pauseChanges('sub_1', 'active', { behavior: 'void', resumesAt: now.toISOString() }, now)), 'billing_date_invalid');
    assert.equal(reason(() => pauseChanges('sub_1', 'active', { behavior: 'void', resumesAt: '2029-01-15T04:30:00.001Z' }, now)), 'billing_date_invalid');
    assert.deepEqual(pauseChanges('sub_1', 'trialing', null, now), { pause_behavior: null, pause_resumes_at: null });
  });
});
