// Account plans and the monthly limit: the rules every way of taking a payment applies (a new
// checkout, Pay on the hosted page, and the saved-card charges and payment links to come). The
// catalogue itself is configuration (config/plans.ts, KASI_PLANS_FILE).
import { ApiError } from './errors';

export interface Plan {
  /** Card payments allowed per calendar month (Sri Lankan time), per mode. */
  monthlyLimitCents: number;
  /** Fee on a successful payment: a share in basis points (1/100 of a percent) plus a fixed part. */
  feeBasisPoints: number;
  feeFixedCents: number;
}

/** A new merchant's plan, and the one an account falls back to when its plan left the catalogue. */
export const DEFAULT_PLAN = 'starter';

/** The account's plan from the catalogue (the default plan's terms if its own was removed). */
export function planOf(plans: Record<string, Plan>, name: string): Plan {
  const plan = plans[name] ?? plans[DEFAULT_PLAN];
  if (!plan) throw new Error(`no plan "${name}" and no "${DEFAULT_PLAN}" plan in the catalogue`);
  return plan;
}

/**
 * The most the month may already have used for a payment of `amountCents` still to fit: a payment
 * fits while used + amount <= limit. One number, so the SQL that checks and writes in one
 * statement (db/checkouts.ts) and the JavaScript that checks under a lock compare against the same
 * bound rather than each restating the rule.
 */
export function mostUsedForPayment(plan: Plan, amountCents: number): number {
  return plan.monthlyLimitCents - amountCents;
}

/** The answer when a payment would take the month past the plan's limit. */
export function monthlyLimitReached(planName: string, plan: Plan, usedCents: number): ApiError {
  return new ApiError('monthly_limit_reached', `This payment would take the month past the ${planName} plan's limit of ${plan.monthlyLimitCents} cents (${usedCents} used).`);
}

/** `account.limit.approaching` goes out once the month's use reaches this share of the limit. */
export const APPROACHING_PERCENT = 80;

/** The limit notices a month's use calls for (each is sent once a month: those sent are skipped). */
export function limitNoticesDue(plan: Plan, usedCents: number): ('approaching' | 'reached')[] {
  const kinds: ('approaching' | 'reached')[] = [];
  if (usedCents * 100 >= plan.monthlyLimitCents * APPROACHING_PERCENT) kinds.push('approaching');
  if (usedCents >= plan.monthlyLimitCents) kinds.push('reached');
  return kinds;
}
