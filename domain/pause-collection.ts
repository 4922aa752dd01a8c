// A pause of a subscription's collection (the spec's `pauseCollection`; DESIGN.md "Pause"): set
// only while the subscription renews (active, past due or unpaid), else 409
// subscription_change_refused; `resumesAt`, if given, after now and within two years; null ends
// it. While it is in force the status stays as it is and each invoice its periods make follows
// the behaviour, collected never: kept as a draft (and a draft it stays), or finalised and at once
// marked uncollectible, or voided. It ends by itself at `resumesAt` (a step of the subscription's
// life: domain/subscription-rules.ts).
import { ApiError } from './errors';
import { billingDateRefusal, type SubscriptionStatus } from './subscription-rules';

export const PAUSE_BEHAVIORS = ['keep_as_draft', 'mark_uncollectible', 'void'] as const;
export type PauseBehavior = (typeof PAUSE_BEHAVIORS)[number];

export interface PauseColumns {
  pause_behavior: PauseBehavior | null;
  pause_resumes_at: Date | null;
}

const RENEWING: readonly SubscriptionStatus[] = ['active', 'past_due', 'unpaid'];

/** The behaviour of the pause in force at `at`, or null (none, or resumed by then). */
export function pauseInForce(s: PauseColumns, at: Date): PauseBehavior | null {
  return s.pause_behavior !== null && (s.pause_resumes_at === null || s.pause_resumes_at.getTime() > at.getTime()) ? s.pause_behavior : null;
}

/** The columns an update's `pauseCollection` sets on a subscription `status` at `now`. */
export function pauseChanges(id: string, status: SubscriptionStatus, asked: { behavior: PauseBehavior; resumesAt?: string } | null, now: Date): PauseColumns {
  if (asked === null) return { pause_behavior: null, pause_resumes_at: null };
  if (!RENEWING.includes(status)) throw new ApiError('subscription_change_refused', `The subscription ${id} is ${status}: its collection is paused only while it renews (active, past_due or unpaid).`);
  const resumesAt = asked.resumesAt === undefined ? null : new Date(asked.resumesAt);
  const refusal = resumesAt === null ? null : billingDateRefusal('pauseCollection.resumesAt', resumesAt, now);
  if (refusal !== null) throw refusal;
  return { pause_behavior: asked.behavior, pause_resumes_at: resumesAt };
}
