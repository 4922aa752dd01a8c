// Usage billing's pure rules (DESIGN.md "Metered prices", fine print "Meter events" and "Metered
// lines"): what a meter event may carry, the bucket its usage is kept in, a meter's aggregation
// over its buckets, the window a customer's usage is counted in, and the lines a period's usage
// bills through the price's scheme.
import type { FieldError } from './errors';
import type { BilledItem, InvoiceLine } from './invoices';
import { amountForQuantity } from './pricing';
import { COLOMBO_OFFSET_MS, colomboMonth } from './time';

export const AGGREGATIONS = ['sum', 'count', 'last'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

const MINUTE_MS = 60 * 1000;
const DAY_MS = 24 * 60 * MINUTE_MS;

export const USAGE_LIMITS = {
  maxValue: 1_000_000_000,
  maxBatch: 100,
  maxIdentifier: 100,
  /** An identifier deduplicates for this long after its event arrived; a timestamp may be this far back. */
  windowMs: 35 * DAY_MS,
  /** How far ahead of the customer's time a timestamp may be. */
  aheadMs: 5 * MINUTE_MS,
  /**
   * Usage is kept per day in Sri Lanka (from midnight in Colombo): an invoice reads at most a
   * period's days of buckets, however many events; a summary between two such midnights counts
   * events exactly by their timestamps.
   */
  bucketMs: DAY_MS,
} as const;

/** Why a timestamp is refused against the customer's `now`, or null. */
export function timestampProblem(at: Date, now: Date): string | null {
  if (at.getTime() < now.getTime() - USAGE_LIMITS.windowMs) return 'Within the past 35 days (in the customer\'s time).';
  if (at.getTime() > now.getTime() + USAGE_LIMITS.aheadMs) return 'At most 5 minutes ahead of the customer\'s time.';
  return null;
}

/** Usage up to here is every event a customer can have sent by `now` (at most 5 minutes ahead): a subscription ended now bills it all. */
export function sentBy(now: Date): Date {
  return new Date(now.getTime() + USAGE_LIMITS.aheadMs + 1);
}

/** The start of the Sri Lankan day containing `at`. */
function dayStart(at: Date): number {
  const local = at.getTime() + COLOMBO_OFFSET_MS;
  return local - (((local % USAGE_LIMITS.bucketMs) + USAGE_LIMITS.bucketMs) % USAGE_LIMITS.bucketMs) - COLOMBO_OFFSET_MS;
}

/** Whether `at` is a midnight in Sri Lanka: the bounds a summary with startTime and endTime takes. */
export function onBucketEdge(at: Date): boolean {
  return dayStart(at) === at.getTime();
}

export function bucketProblems(range: { startTime: Date; endTime: Date }): FieldError[] {
  const problems: FieldError[] = [];
  for (const key of ['startTime', 'endTime'] as const) {
    if (!onBucketEdge(range[key])) problems.push({ path: key, message: 'A midnight in Sri Lanka (usage is kept per day there), e.g. 2026-12-31T18:30:00.000Z for 1 January (in a URL, write the + of +05:30 as %2B).' });
  }
  if (range.endTime.getTime() <= range.startTime.getTime()) problems.push({ path: 'endTime', message: 'After startTime.' });
  return problems;
}

/**
 * The bucket an event's usage goes to: its day in Sri Lanka, or, when a boundary of the customer's
 * usage billing (a subscription's first billed instant, or its period's end) falls inside that day
 * at or before the event, that boundary, so a bucket never straddles one: an invoice takes whole
 * buckets.
 */
export function bucketStart(at: Date, boundaries: readonly Date[]): Date {
  const day = dayStart(at);
  const cut = boundaries.map((b) => b.getTime()).filter((b) => b > day && b <= at.getTime());
  return new Date(Math.max(day, ...cut));
}

/** A meter's buckets taken together: the sum of values, the count of events, and the value with the latest timestamp (0 when none). */
export interface UsageTotals {
  sum: number;
  count: number;
  last: number;
}

export function aggregatedValue(aggregation: Aggregation, totals: UsageTotals): number {
  return totals[aggregation];
}

/** A subscription's period that bills a meter: usage counts from `from` (its first paid period's start) to the period's `end`. */
export interface MeteredPeriod {
  meterId: string;
  start: Date;
  end: Date;
  from: Date;
}

/**
 * Where a customer's usage of a meter is counted (DESIGN.md: "the customer's current period"):
 * the current period of their subscription that bills the meter, in its buckets not yet invoiced
 * (late events included); else the calendar month in Sri Lanka containing `now`, every bucket in it.
 */
export interface UsageWindow {
  start: Date;
  end: Date;
  /** Buckets from here (a subscription's usage before it began bills nothing). */
  from: Date;
  notInvoicedOnly: boolean;
}

export function currentWindow(meterId: string, periods: readonly MeteredPeriod[], now: Date): UsageWindow {
  const period = periods.find((p) => p.meterId === meterId);
  if (period !== undefined) return { start: period.start, end: period.end, from: period.from, notInvoicedOnly: true };
  const month = colomboMonth(now);
  return { start: month.start, end: month.end, from: month.start, notInvoicedOnly: false };
}

/**
 * The lines a period's usage bills, in arrears: one per metered item, `quantity` the usage (0
 * too), the amount through the price's scheme (one line for all its tiers); the unit amount is the
 * price's own for per-unit prices, else the amount per unit rounded to the cent.
 */
export function usageLines(items: readonly BilledItem[], usage: ReadonlyMap<string, number>, period: { start: Date; end: Date }): InvoiceLine[] {
  return items
    .filter((item) => item.terms.usageType === 'metered')
    .map((item) => {
      const quantity = usage.get(item.priceId) ?? 0;
      const amountCents = amountForQuantity(item.terms, quantity);
      const unitAmountCents = item.terms.billingScheme === 'per_unit' ? item.terms.unitAmountCents : quantity === 0 ? 0 : Math.round(amountCents / quantity);
      return {
        description: `${quantity} × ${item.productName} (usage)`,
        quantity,
        unitAmountCents,
        amountCents,
        periodStart: period.start.toISOString(),
        periodEnd: period.end.toISOString(),
        proration: false,
        priceId: item.priceId,
      };
    });
}
