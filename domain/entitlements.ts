// Entitlements: what a customer may use, from the features of the products they subscribe to.
import type { SubscriptionStatus } from './subscription-rules';

/**
 * The subscription statuses that entitle a customer to their products' features: a trial counts,
 * and so does a renewal still being collected (dunning); `unpaid`, `paused`, `incomplete` and the
 * ended ones do not.
 */
export const ENTITLING_STATUSES = ['trialing', 'active', 'past_due'] as const satisfies readonly SubscriptionStatus[];

/** `[A-Za-z0-9_.-]`, 1 to 80: what a merchant's app asks for ("may this customer use X?"). */
export const LOOKUP_KEY_PATTERN = '^[A-Za-z0-9_.-]{1,80}$';

export function entitles(status: SubscriptionStatus): boolean {
  return (ENTITLING_STATUSES as readonly SubscriptionStatus[]).includes(status);
}

/**
 * Whether a subscription's change may change what its customer may use: it starts or stops
 * entitling (`before` null: it is new), or its items change while it entitles. Active to past_due
 * and back, or a trial converting, does not: nothing need be read for them.
 */
export function entitlementsMayChange(change: { before: SubscriptionStatus | null; after: SubscriptionStatus; itemsChanged?: boolean }): boolean {
  const was = change.before !== null && entitles(change.before);
  const is = entitles(change.after);
  return was !== is || (is && change.itemsChanged === true);
}
