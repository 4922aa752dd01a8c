// Which changes each subscription status allows, per the spec's transitions.
import assert from 'node:assert/strict';
import { pausedWithoutCard, SUBSCRIPTION_STATUSES, subscriptionChangeRefusal, type SubscriptionChange } from '../../domain/subscription-rules';

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
