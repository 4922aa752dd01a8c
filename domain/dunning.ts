// The dunning ladder (DESIGN.md, "Dunning"): a declined renewal or invoice charge is retried on
// days 1, 3, 7 and 14 after the first decline; when the last retry fails too, the subscription
// becomes `unpaid` (or `canceled`, by account setting) and the invoice stays open for the customer
// to pay on the hosted invoice page. Paying it at any point stops the ladder.
import type { SubscriptionStatus } from './subscription-rules';

/** Days after the first decline on which the charge is tried again. */
export const RETRY_DAYS = [1, 3, 7, 14] as const;

const DAY_MS = 24 * 60 * 60 * 1000;

/** What ends the ladder when every retry has failed. */
export type LadderEnd = 'unpaid' | 'canceled';

/**
 * When to try again after `attemptCount` attempts have failed, the first of them at
 * `firstDeclineAt`; null when the ladder is over (the first attempt plus every retry made).
 */
export function nextAttemptAt(firstDeclineAt: Date, attemptCount: number): Date | null {
  if (attemptCount < 1) throw new RangeError(`attemptCount ${attemptCount}: the ladder starts at the first decline`);
  const days = RETRY_DAYS[attemptCount - 1];
  return days === undefined ? null : new Date(firstDeclineAt.getTime() + days * DAY_MS);
}

/** Where an invoice's collection stands after an attempt at its charge. */
export type CollectionStep =
  | { kind: 'closed' }
  | { kind: 'pending' }
  | { kind: 'paid' }
  | { kind: 'declined'; nextAttemptAt: number | null };

/** The attempt's step ends the invoice's collection: decided, and no retry follows (`once`: none ever does). */
export function collectionEnds(step: CollectionStep, once: boolean): boolean {
  if (step.kind === 'pending') return false;
  return once || step.kind !== 'declined' || step.nextAttemptAt === null;
}

/** The attempts a ladder makes in all: the first charge and its retries. */
export const LADDER_ATTEMPTS = 1 + RETRY_DAYS.length;

/**
 * A subscription's status once its invoice's charge has been declined: an incomplete one stays so
 * (its first invoice is paid on the page or it expires), one whose ladder is over becomes `end`,
 * and one renewing goes `past_due` while retries remain. Other statuses (paused, trialing) stay.
 */
export function statusAfterDecline(current: SubscriptionStatus, ladderOver: boolean, end: LadderEnd): SubscriptionStatus {
  if (current !== 'active' && current !== 'past_due') return current;
  return ladderOver ? end : 'past_due';
}

/** A subscription's status once its invoice is paid: whatever was owed, it runs again. */
export function statusAfterPayment(current: SubscriptionStatus): SubscriptionStatus {
  return current === 'incomplete' || current === 'past_due' || current === 'unpaid' ? 'active' : current;
}
