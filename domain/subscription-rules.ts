// A subscription's statuses and what each lets a merchant change (the spec's Subscription
// transitions): once ended (canceled, incomplete_expired) every change answers
// subscription_ended; a change the status does not allow answers subscription_change_refused.
import { ApiError } from './errors';

export const SUBSCRIPTION_STATUSES = ['incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'unpaid', 'paused', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const TRIAL_END_BEHAVIORS = ['create_invoice', 'pause', 'cancel'] as const;
/** What a trial ending with no card on file does: invoice the customer (paid on its page), pause, or cancel. */
export type TrialEndBehavior = (typeof TRIAL_END_BEHAVIORS)[number];

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

/** `customer.subscription.trial_will_end` and its email go out this many days before a trial ends. */
export const TRIAL_NOTICE_DAYS = 3;

/** `invoice.upcoming` goes out this many days before a renewal (for periods longer than that). */
export const UPCOMING_NOTICE_DAYS = 3;

const DAY_MS = 24 * 60 * 60 * 1000;

/** What falls due next in a subscription's life, at `at` (ms since the epoch) in the customer's time. */
export type SubscriptionDue = { kind: 'expire_incomplete' | 'trial_will_end' | 'trial_end' | 'cancel' | 'invoice_upcoming' | 'renew' | 'resume_collection' | 'pending_update_expires'; at: number };

/** A subscription's next instant: a due step, nothing until the merchant changes it (`idle`: paused), or `ended`. */
export type SubscriptionNext = SubscriptionDue | { kind: 'idle' } | { kind: 'ended' };

export interface SubscriptionTimes {
  status: SubscriptionStatus;
  created_at: Date;
  current_period_end: Date;
  trial_end: Date | null;
  /** The trial end its notice went out for (a trial moved later is noticed again). */
  trial_notice_for: Date | null;
  current_period_start: Date;
  /** The period end whose invoice.upcoming went out. */
  upcoming_notice_for: Date | null;
  cancel_at_period_end: boolean;
  cancel_at: Date | null;
  /** A pause of collection (domain/pause-collection.ts) and when it ends by itself. */
  pause_behavior?: string | null;
  pause_resumes_at?: Date | null;
  /** A change waiting for its invoice, dropped at `expiresAt` (DESIGN.md "Subscription changes"). */
  pending_update?: { expiresAt: string } | null;
}

/**
 * The next step of a subscription's life, from its row alone (its workflow asks after every step
 * and every change): a change waiting for its invoice is dropped at its `expiresAt` when that
 * comes first; an incomplete one expires 23 hours after it was made; a trial is noticed
 * three days before its end (at once when shorter) and then ends; a `cancelAt` inside the current
 * period (or trial) ends it there; otherwise invoice.upcoming three days before the period's end
 * (when it will renew and the period is longer than that), then the period's end renews it (or
 * ends it, when canceled at period end). A pause of collection ends at its `resumesAt`, before
 * what falls due then.
 */
export function nextSubscriptionStep(s: SubscriptionTimes): SubscriptionNext {
  const next = plannedStep(s);
  const resumesAt = s.pause_behavior == null ? null : (s.pause_resumes_at?.getTime() ?? null);
  const planned: SubscriptionNext = resumesAt !== null && 'at' in next && resumesAt <= next.at ? { kind: 'resume_collection', at: resumesAt } : next;
  if (s.pending_update == null || planned.kind === 'ended') return planned;
  const expiresAt = Date.parse(s.pending_update.expiresAt);
  return 'at' in planned && planned.at < expiresAt ? planned : { kind: 'pending_update_expires', at: expiresAt };
}

function plannedStep(s: SubscriptionTimes): SubscriptionNext {
  if (ENDED_STATUSES.includes(s.status)) return { kind: 'ended' };
  if (s.status === 'paused') return { kind: 'idle' };
  if (s.status === 'incomplete') return { kind: 'expire_incomplete', at: s.created_at.getTime() + INCOMPLETE_EXPIRY_MS };
  const periodEnd = s.status === 'trialing' && s.trial_end !== null ? s.trial_end : s.current_period_end;
  if (s.cancel_at !== null && s.cancel_at.getTime() <= periodEnd.getTime()) return { kind: 'cancel', at: s.cancel_at.getTime() };
  if (s.status === 'trialing' && s.trial_end !== null) {
    if (s.trial_notice_for?.getTime() !== s.trial_end.getTime()) return { kind: 'trial_will_end', at: Math.max(s.trial_end.getTime() - TRIAL_NOTICE_DAYS * DAY_MS, s.created_at.getTime()) };
    return { kind: 'trial_end', at: s.trial_end.getTime() };
  }
  const upcomingAt = s.current_period_end.getTime() - UPCOMING_NOTICE_DAYS * DAY_MS;
  const noticed = s.upcoming_notice_for?.getTime() === s.current_period_end.getTime();
  if (!noticed && !s.cancel_at_period_end && upcomingAt > s.current_period_start.getTime()) return { kind: 'invoice_upcoming', at: upcomingAt };
  return { kind: 'renew', at: s.current_period_end.getTime() };
}

/** The same step (the workflow's due one is still what the row says is due). */
export function sameStep(a: SubscriptionNext, b: SubscriptionNext): boolean {
  return a.kind === b.kind && ('at' in a ? a.at : null) === ('at' in b ? b.at : null);
}

/**
 * A `trialEnd` or `cancelAt` (at `path`) must be after the customer's now and at most two years
 * ahead: 400 billing_date_invalid otherwise.
 */
export function billingDateRefusal(path: string, at: Date, now: Date): ApiError | null {
  const latest = new Date(now);
  latest.setUTCFullYear(latest.getUTCFullYear() + 2);
  const message = at <= now ? `Must be after now (${now.toISOString()}).` : at > latest ? `Must be at most two years ahead: up to ${latest.toISOString()}.` : null;
  return message === null ? null : new ApiError('billing_date_invalid', `${path}: ${message}`, { fields: [{ path, message }] });
}

/**
 * `cancellationDetails.reason`, Stripe's values: `cancellation_requested` once the merchant asks for
 * an end (now, at the period's end, or at `cancelAt`; null again when withdrawn), `payment_failed`
 * when the dunning ladder ends it; a trial ending without a card leaves it as it was (its
 * `cancelReason` says why).
 */
export type CancellationReason = 'cancellation_requested' | 'payment_failed';

export function cancellationReasonOf(cancelReason: string | null): CancellationReason | null {
  if (cancelReason === 'requested_by_merchant') return 'cancellation_requested';
  return cancelReason === 'payment_failed' ? 'payment_failed' : null;
}
