// Which changes each subscription status allows, per the spec's transitions.
import assert from 'node:assert/strict';
import { billingDateRefusal, nextSubscriptionStep, pausedWithoutCard, sameStep, SUBSCRIPTION_STATUSES, subscriptionChangeRefusal, type SubscriptionChange, type SubscriptionTimes } from '../../domain/subscription-rules';

const reason = (status: (typeof SUBSCRIPTION_STATUSES)[number], change: SubscriptionChange) => subscriptionChangeRefusal('sub_1', status, change)?.reason ?? 'allowed';

describe('subscription rules: the changes each status allows', () => {
  it('an ended subscription (canceled, incomplete_expired) refuses every change: subscription_ended', () => {
    for (const status of ['canceled', 'incomplete_expired'] as const) {
      for (const change of ['update', 'cancel', 'resume', 'trial_end'] as const) assert.equal(reason(status, change), 'subscription_ended', `${status} ${change}`);
    }
  });

  it('update and cancel: any status not ended', () => {
    for (const status of ['incomplete', 'trialing', 'active', 'past_due', 'unpaid', 'paused'] as const) {
      assert.equal(reason(status, 'update'), 'allowed');
      assert.equal(reason(status, 'cancel'), 'allowed');
    }
  });

  it('resume: any status not ended (a subscription with nothing to resume is returned as it is); trialEnd only while trialing', () => {
    for (const status of ['incomplete', 'trialing', 'active', 'past_due', 'unpaid', 'paused'] as const) assert.equal(reason(status, 'resume'), 'allowed');
    assert.equal(reason('trialing', 'trial_end'), 'allowed');
    for (const status of ['incomplete', 'active', 'past_due', 'unpaid', 'paused'] as const) assert.equal(reason(status, 'trial_end'), 'subscription_change_refused');
    assert.match(subscriptionChangeRefusal('sub_1', 'active', 'trial_end')!.message, /only while it is trialing/);
    assert.deepEqual([pausedWithoutCard('sub_1').reason, pausedWithoutCard('sub_1').status], ['subscription_change_refused', 409]);
  });
});

describe('subscription rules: the next step of a subscription\'s life', () => {
  const t = (iso: string) => new Date(iso);
  const base: SubscriptionTimes = {
    status: 'active', created_at: t('2027-01-01T00:00:00.000Z'), current_period_start: t('2027-01-01T00:00:00.000Z'), current_period_end: t('2027-02-01T00:00:00.000Z'),
    trial_end: null, trial_notice_for: null, upcoming_notice_for: t('2027-02-01T00:00:00.000Z'), cancel_at_period_end: false, cancel_at: null,
  };
  const step = (changes: Partial<SubscriptionTimes>) => {
    const next = nextSubscriptionStep({ ...base, ...changes });
    return 'at' in next ? [next.kind, new Date(next.at).toISOString()] : [next.kind];
  };

  it('ended and paused subscriptions have no step; an incomplete one expires 23 hours after it was made', () => {
    assert.deepEqual([step({ status: 'canceled' }), step({ status: 'incomplete_expired' }), step({ status: 'paused' })], [['ended'], ['ended'], ['idle']]);
    assert.deepEqual(step({ status: 'incomplete' }), ['expire_incomplete', '2027-01-01T23:00:00.000Z']);
  });

  it('running ones renew at the period\'s end (past_due and unpaid too), unless cancelAt falls first or on it', () => {
    for (const status of ['active', 'past_due', 'unpaid'] as const) assert.deepEqual(step({ status }), ['renew', '2027-02-01T00:00:00.000Z']);
    assert.deepEqual(step({ cancel_at: t('2027-01-20T00:00:00.000Z') }), ['cancel', '2027-01-20T00:00:00.000Z']);
    assert.deepEqual(step({ cancel_at: t('2027-02-01T00:00:00.000Z') }), ['cancel', '2027-02-01T00:00:00.000Z']);
    assert.deepEqual(step({ cancel_at: t('2027-02-01T00:00:01.000Z') }), ['renew', '2027-02-01T00:00:00.000Z']);
  });

  it('a trial is noticed three days before its end (at once when shorter), once per end, then ends; a cancelAt inside it comes first', () => {
    const trial = { status: 'trialing' as const, trial_end: t('2027-01-15T00:00:00.000Z'), current_period_end: t('2027-01-15T00:00:00.000Z') };
    assert.deepEqual(step(trial), ['trial_will_end', '2027-01-12T00:00:00.000Z']);
    assert.deepEqual(step({ ...trial, trial_end: t('2027-01-02T00:00:00.000Z') }), ['trial_will_end', '2027-01-01T00:00:00.000Z']);
    assert.deepEqual(step({ ...trial, trial_notice_for: t('2027-01-15T00:00:00.000Z') }), ['trial_end', '2027-01-15T00:00:00.000Z']);
    assert.deepEqual(step({ ...trial, trial_notice_for: t('2027-01-10T00:00:00.000Z') }), ['trial_will_end', '2027-01-12T00:00:00.000Z'], 'a trial moved later is noticed again');
    assert.deepEqual(step({ ...trial, cancel_at: t('2027-01-14T00:00:00.000Z') }), ['cancel', '2027-01-14T00:00:00.000Z']);
  });

  it('a change waiting for its invoice is dropped at its expiresAt when that comes before the next step; after it, the step comes first; ended, none', () => {
    const pending = (expiresAt: string) => ({ pending_update: { expiresAt } });
    assert.deepEqual(step(pending('2027-01-16T23:00:00.000Z')), ['pending_update_expires', '2027-01-16T23:00:00.000Z']);
    assert.deepEqual(step({ ...pending('2027-02-01T23:00:00.000Z') }), ['renew', '2027-02-01T00:00:00.000Z']);
    assert.deepEqual(step({ ...pending('2027-01-16T23:00:00.000Z'), status: 'paused' }), ['pending_update_expires', '2027-01-16T23:00:00.000Z']);
    assert.deepEqual(step({ ...pending('2027-01-16T23:00:00.000Z'), status: 'canceled' }), ['ended']);
  });

  it('a pause of collection ends at its resumesAt, before what falls due then or after; without resumesAt it has no step', () => {
    const pause = { pause_behavior: 'void', pause_resumes_at: t('2027-01-20T00:00:00.000Z') };
    assert.deepEqual(step(pause), ['resume_collection', '2027-01-20T00:00:00.000Z']);
    assert.deepEqual(step({ ...pause, pause_resumes_at: t('2027-02-01T00:00:00.000Z') }), ['resume_collection', '2027-02-01T00:00:00.000Z'], 'on the renewal\'s instant, first');
    assert.deepEqual(step({ ...pause, pause_resumes_at: t('2027-03-01T00:00:00.000Z') }), ['renew', '2027-02-01T00:00:00.000Z']);
    assert.deepEqual(step({ ...pause, pause_resumes_at: null }), ['renew', '2027-02-01T00:00:00.000Z']);
    assert.deepEqual(step({ ...pause, status: 'canceled' }), ['ended']);
  });

  it('invoice.upcoming three days before a renewal, once per period; none when it will not renew or the period is three days or shorter', () => {
    const fresh = { upcoming_notice_for: null };
    assert.deepEqual(step(fresh), ['invoice_upcoming', '2027-01-29T00:00:00.000Z']);
    assert.deepEqual(step({ upcoming_notice_for: t('2027-01-01T00:00:00.000Z') }), ['invoice_upcoming', '2027-01-29T00:00:00.000Z'], 'the last period\'s notice is not this one\'s');
    assert.deepEqual(step({ ...fresh, cancel_at_period_end: true }), ['renew', '2027-02-01T00:00:00.000Z']);
    assert.deepEqual(step({ ...fresh, current_period_start: t('2027-01-29T00:00:00.000Z') }), ['renew', '2027-02-01T00:00:00.000Z']);
    assert.deepEqual(step({ ...fresh, cancel_at: t('2027-01-30T00:00:00.000Z') }), ['cancel', '2027-01-30T00:00:00.000Z']);
  });

  it('a step is the same only with the same kind and instant', () => {
    assert.ok(sameStep({ kind: 'renew', at: 5 }, { kind: 'renew', at: 5 }));
    assert.ok(!sameStep({ kind: 'renew', at: 5 }, { kind: 'renew', at: 6 }));
    assert.ok(!sameStep({ kind: 'renew', at: 5 }, { kind: 'cancel', at: 5 }));
    assert.ok(sameStep({ kind: 'idle' }, { kind: 'idle' }));
  });

  it('trialEnd and cancelAt: after now, at most two years ahead (billing_date_invalid, naming the field)', () => {
    const now = t('2027-01-15T04:30:00.000Z');
    assert.equal(billingDateRefusal('cancelAt', t('2027-01-15T04:30:00.001Z'), now), null);
    assert.equal(billingDateRefusal('cancelAt', t('2029-01-15T04:30:00.000Z'), now), null);
    for (const at of ['2027-01-15T04:30:00.000Z', '2029-01-15T04:30:00.001Z']) {
      const refusal = billingDateRefusal('trialEnd', t(at), now)!;
      assert.deepEqual([refusal.reason, refusal.fields?.[0]?.path], ['billing_date_invalid', 'trialEnd']);
    }
  });
});
