// Which subscription changes may change what a customer may use (domain/entitlements.ts): only
// those that start or stop entitling, or change the items of one that entitles.
import assert from 'node:assert/strict';
import { entitlementsMayChange, entitles } from '../../domain/entitlements';
import type { SubscriptionStatus } from '../../domain/subscription-rules';

describe('entitlements: which changes are read', () => {
  it('trialing, active and past_due entitle; the other statuses do not', () => {
    const all: SubscriptionStatus[] = ['incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'unpaid', 'paused', 'canceled'];
    assert.deepEqual(all.filter(entitles), ['trialing', 'active', 'past_due']);
  });

  it('a change of status matters when it crosses between entitling and not', () => {
    const cases: [SubscriptionStatus | null, SubscriptionStatus, boolean][] = [
      [null, 'trialing', true],
      [null, 'active', true],
      [null, 'incomplete', false],
      ['incomplete', 'active', true],
      ['incomplete', 'incomplete_expired', false],
      ['active', 'past_due', false],
      ['past_due', 'active', false],
      ['trialing', 'active', false],
      ['past_due', 'unpaid', true],
      ['unpaid', 'active', true],
      ['trialing', 'paused', true],
      ['paused', 'active', true],
      ['active', 'canceled', true],
      ['unpaid', 'canceled', false],
      ['paused', 'canceled', false],
    ];
    for (const [before, after, expected] of cases) assert.equal(entitlementsMayChange({ before, after }), expected, `${before} to ${after}`);
  });

  it('a change of items matters while the subscription entitles', () => {
    assert.equal(entitlementsMayChange({ before: 'active', after: 'active', itemsChanged: true }), true);
    assert.equal(entitlementsMayChange({ before: 'past_due', after: 'past_due', itemsChanged: true }), true);
    assert.equal(entitlementsMayChange({ before: 'active', after: 'active' }), false);
    assert.equal(entitlementsMayChange({ before: 'unpaid', after: 'unpaid', itemsChanged: true }), false);
  });
});
