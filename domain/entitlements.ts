// Entitlements: what a customer may use, from the features of the products they subscribe to.

/**
 * The subscription statuses that entitle a customer to their products' features: a trial counts,
 * and so does a renewal still being collected (dunning); `unpaid`, `paused`, `incomplete` and the
 * ended ones do not.
 */
export const ENTITLING_STATUSES = ['trialing', 'active', 'past_due'] as const;

/** `[A-Za-z0-9_.-]`, 1 to 80: what a merchant's app asks for ("may this customer use X?"). */
export const LOOKUP_KEY_PATTERN = '^[A-Za-z0-9_.-]{1,80}$';
