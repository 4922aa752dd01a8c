// A subscription's statuses and what each lets a merchant change (the spec's Subscription
// transitions): once ended (canceled, incomplete_expired) every change answers
// subscription_ended; a change the status does not allow answers subscription_change_refused.
import { ApiError } from './errors';

export const SUBSCRIPTION_STATUSES = ['incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'unpaid', 'paused', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** An incomplete subscription whose first invoice is unpaid this long after it was made expires. */
export const INCOMPLETE_EXPIRY_MS = 23 * 60 * 60 * 1000;

export const ENDED_STATUSES: readonly SubscriptionStatus[] = ['canceled', 'incomplete_expired'];

/**
 * What a request asks of a subscription. Updates, cancellations and resumes are open to every
 * status not ended (a resume with nothing to withdraw or restart returns it as it is); a new
 * `trialEnd` only while trialing.
 */
export type SubscriptionChange = 'update' | 'cancel' | 'resume' | 'trial_end';

export function subscriptionChangeRefusal(id: string, status: SubscriptionStatus, change: SubscriptionChange): ApiError | null {
  if (ENDED_STATUSES.includes(status)) return new ApiError('subscription_ended', `The subscription ${id} is ${status}: it has ended, and its invoices and payments stay readable.`);
  if (change === 'trial_end' && status !== 'trialing') return new ApiError('subscription_change_refused', `The subscription ${id} is ${status}: its trial end changes only while it is trialing.`);
  return null;
}

/** Resuming a paused subscription bills a new period at once: it needs a card on file. */
export function pausedWithoutCard(id: string): ApiError {
  return new ApiError('subscription_change_refused', `The subscription ${id} is paused with no card on file: give it a card (cardId) before resuming it.`);
}
