// A subscription's billing cycle anchor at create (the spec's `billingCycleAnchor`; DESIGN.md
// "Anchors"): `now`, `first_of_month` (the next midnight on the 1st in Sri Lanka; monthly and
// yearly prices only) or a time after now at most one period ahead; never other than `now` with a
// trial. The part period up to the anchor is invoiced at once, prorated against the whole period
// that ends at the anchor; worth less than a card payment's minimum, it waits for the first
// renewal invoice instead.
import { periodBoundary, type Recurrence } from './billing-periods';
import { PAYMENT_MIN_CENTS } from './checkout-rules';
import { ApiError } from './errors';
import { colomboMonth } from './time';

export const DEFAULT_ANCHORS = ['now', 'first_of_month'] as const;
/** The account's default anchor (a create that names none, without a trial). */
export type DefaultAnchor = (typeof DEFAULT_ANCHORS)[number];

const invalid = (message: string) => new ApiError('billing_cycle_anchor_invalid', `billingCycleAnchor: ${message}`, { fields: [{ path: 'billingCycleAnchor', message }] });

/** The anchor `asked` names for a subscription made at `now` billing every `recurrence`; 400 billing_cycle_anchor_invalid when it may not be. */
export function billingCycleAnchorAt(asked: string, recurrence: Recurrence, now: Date, trial: boolean): Date {
  if (asked === 'now') return now;
  const at = asked === 'first_of_month' ? null : new Date(asked);
  if (at !== null && Number.isNaN(at.getTime())) throw invalid('Must be `now`, `first_of_month` or an ISO 8601 time.');
  if (trial) throw invalid('Only `now` is allowed with a trial: the periods are counted from its end.');
  if (at === null) {
    if (recurrence.interval !== 'month' && recurrence.interval !== 'year') throw invalid('`first_of_month` takes monthly and yearly prices only.');
    const month = colomboMonth(now);
    return month.start.getTime() === now.getTime() ? now : month.end;
  }
  const latest = periodBoundary(now, recurrence, 1);
  if (at <= now) throw invalid(`Must be after now (${now.toISOString()}).`);
  if (at > latest) throw invalid(`Must be at most one period ahead: up to ${latest.toISOString()}.`);
  return at;
}

/** A part period worth less than a card payment's minimum goes onto the first renewal invoice. */
export function partPeriodDeferred(amountCents: number): boolean {
  return amountCents < PAYMENT_MIN_CENTS;
}
