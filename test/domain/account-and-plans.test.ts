// The account and plan rules every way of taking a payment applies: pure, so checked here once
// for all callers (the API's writes, the hosted pages, a payment's settlement).
import assert from 'node:assert/strict';
import { accountRefusal, livePaymentsOpen } from '../../domain/account-rules';
import { checkoutClosure, isPaid } from '../../domain/checkout-rules';
import { DEFAULT_PLAN, limitNoticesDue, monthlyLimitReached, mostUsedForPayment, planOf, type Plan } from '../../domain/plans';

const starter: Plan = { monthlyLimitCents: 100_000, feeBasisPoints: 330, feeFixedCents: 0 };
const growth: Plan = { monthlyLimitCents: 500_000, feeBasisPoints: 300, feeFixedCents: 0 };

describe('plans and the monthly limit', () => {
  it('finds the account plan, falling back to the default plan when the catalogue lost it', () => {
    assert.equal(planOf({ [DEFAULT_PLAN]: starter, growth }, 'growth'), growth);
    assert.equal(planOf({ [DEFAULT_PLAN]: starter, growth }, 'retired'), starter);
    assert.throws(() => planOf({ growth }, 'retired'), /no plan "retired"/);
  });

  it('lets a payment fit while the month has used at most the limit less the amount', () => {
    const bound = mostUsedForPayment(starter, 30_000);
    assert.equal(bound, 70_000);
    // Exactly to the limit fits; one cent more does not.
    assert.ok(70_000 <= bound);
    assert.ok(!(70_001 <= bound));
    // A payment larger than the whole limit never fits, even in an empty month.
    assert.ok(!(0 <= mostUsedForPayment(starter, 100_001)));
  });

  it('calls for approaching from 80% of the limit and reached at the limit', () => {
    assert.deepEqual(limitNoticesDue(starter, 79_999), []);
    assert.deepEqual(limitNoticesDue(starter, 80_000), ['approaching']);
    assert.deepEqual(limitNoticesDue(starter, 99_999), ['approaching']);
    assert.deepEqual(limitNoticesDue(starter, 100_000), ['approaching', 'reached']);
  });

  it('names the plan, its limit and the month\'s use in monthly_limit_reached', () => {
    const error = monthlyLimitReached('starter', starter, 95_000);
    assert.equal(error.reason, 'monthly_limit_reached');
    assert.equal(error.status, 409);
    assert.match(error.message, /starter plan's limit of 100000 cents \(95000 used\)/);
  });
});

describe('account standing', () => {
  const activated = new Date('2026-01-05T00:00:00Z');

  it('opens live payments only once activated and while active', () => {
    assert.equal(livePaymentsOpen({ status: 'active', liveActivatedAt: activated }), true);
    assert.equal(livePaymentsOpen({ status: 'active', liveActivatedAt: null }), false);
    assert.equal(livePaymentsOpen({ status: 'suspended', liveActivatedAt: activated }), false);
    assert.equal(livePaymentsOpen({ status: 'not_activated', liveActivatedAt: null }), false);
  });

  it('refuses a suspended account in both modes, and live work before activation', () => {
    assert.equal(accountRefusal({ status: 'suspended', liveActivatedAt: activated }, 'test')?.reason, 'merchant_unavailable');
    assert.equal(accountRefusal({ status: 'suspended', liveActivatedAt: activated }, 'live')?.reason, 'merchant_unavailable');
    assert.equal(accountRefusal({ status: 'not_activated', liveActivatedAt: null }, 'live')?.reason, 'merchant_not_live');
    assert.equal(accountRefusal({ status: 'not_activated', liveActivatedAt: null }, 'test'), null);
    assert.equal(accountRefusal({ status: 'active', liveActivatedAt: activated }, 'live'), null);
  });
});

describe('checkout closure', () => {
  const expiresAt = new Date('2026-03-01T10:30:00Z');
  const before = new Date('2026-03-01T10:29:59Z');

  it('is open until paid or past its time', () => {
    assert.equal(checkoutClosure({ status: 'open', expires_at: expiresAt }, 'requires_payment_method', before), null);
    assert.equal(checkoutClosure({ status: 'open', expires_at: expiresAt }, 'failed', before), null);
    assert.equal(checkoutClosure({ status: 'open', expires_at: expiresAt }, 'processing', before), null);
  });

  it('says not_open once paid, even before the checkout row completes, and expired at its time', () => {
    assert.equal(checkoutClosure({ status: 'completed', expires_at: expiresAt }, 'succeeded', before), 'not_open');
    assert.equal(checkoutClosure({ status: 'open', expires_at: expiresAt }, 'succeeded', before), 'not_open');
    assert.equal(checkoutClosure({ status: 'open', expires_at: expiresAt }, 'requires_payment_method', expiresAt), 'expired');
    assert.equal(checkoutClosure({ status: 'expired', expires_at: expiresAt }, 'canceled', before), 'expired');
  });

  it('counts a payment refunded since as paid (its card may still be kept)', () => {
    for (const status of ['succeeded', 'partially_refunded', 'refunded']) assert.equal(isPaid(status), true, status);
    for (const status of ['requires_payment_method', 'processing', 'failed', 'canceled']) assert.equal(isPaid(status), false, status);
    assert.equal(checkoutClosure({ status: 'open', expires_at: expiresAt }, 'refunded', before), 'not_open');
  });
});
