// A change of a subscription's items (the spec's update body: `items`, or `priceId`/`quantity` for
// a one-item subscription) and what it bills (DESIGN.md "Proration", "Subscription changes" and
// their fine print), decided from the items before and after, the current period and the
// proration date alone. The update and the previews (POST /v1/invoices/preview) both come here,
// so a preview is the invoice to the cent.
import { periodAt, periodFrom, type BilledPeriod, type Period, type Recurrence } from './billing-periods';
import { ApiError } from './errors';
import { periodLines, type InvoiceLine } from './invoices';
import { prorationLines, type ProratedItem, type ProrationUnit } from './proration';
import { INCOMPLETE_EXPIRY_MS, type SubscriptionStatus } from './subscription-rules';

export const PRORATION_BEHAVIORS = ['create_prorations', 'always_invoice', 'none'] as const;
export type ProrationBehavior = (typeof PRORATION_BEHAVIORS)[number];
export const PAYMENT_BEHAVIORS = ['allow_incomplete', 'pending_if_incomplete'] as const;
export type PaymentBehavior = (typeof PAYMENT_BEHAVIORS)[number];

/** A change waits for its invoice this long, like a first invoice (DESIGN.md "Subscription changes"). */
export const PENDING_UPDATE_MS = INCOMPLETE_EXPIRY_MS;

/** Items a subscription may have at most (the spec's limits). */
export const MAX_ITEMS = 10;

/** An item as the body names it: an existing one by `id`, or a new one by `priceId`. */
export interface ItemChange {
  id?: string;
  priceId?: string;
  quantity?: number;
  deleted?: boolean;
}

/** An item after the change: `id` null for a new one. */
export interface WantedItem {
  id: string | null;
  priceId: string;
  quantity: number;
}

const itemsInvalid = (message: string, path = 'items') => new ApiError('items_invalid', message, { fields: [{ path, message }] });

/**
 * The items the subscription will have: `items` applied to the current ones (an existing item by
 * `id` takes a new `priceId` or `quantity`, or goes with `deleted`; one without `id` is added by
 * `priceId`), or `priceId`/`quantity` for a one-item subscription. 400 items_invalid for an unknown
 * or repeated item, a new item without a price, a price twice, none left or more than ten.
 */
export function wantedItems(current: readonly WantedItem[], change: { items?: readonly ItemChange[]; priceId?: string; quantity?: number }): WantedItem[] {
  if (change.items === undefined) {
    if (current.length !== 1) throw itemsInvalid('priceId and quantity change a one-item subscription: name the items to change with `items`.', change.priceId !== undefined ? 'priceId' : 'quantity');
    const [only] = current;
    return [{ id: only!.id, priceId: change.priceId ?? only!.priceId, quantity: change.quantity ?? only!.quantity }];
  }
  const wanted = current.map((item) => ({ ...item }));
  const named = new Set<string>();
  const removed = new Set<string>();
  for (const [i, item] of change.items.entries()) {
    if (item.id === undefined) {
      if (item.priceId === undefined || item.deleted === true) throw itemsInvalid('A new item (without id) needs a priceId, and is not deleted.', `items[${i}]`);
      wanted.push({ id: null, priceId: item.priceId, quantity: item.quantity ?? 1 });
      continue;
    }
    const existing = wanted.find((w) => w.id === item.id);
    if (existing === undefined) throw itemsInvalid(`The subscription has no item ${item.id}.`, `items[${i}].id`);
    if (named.has(item.id)) throw itemsInvalid(`The item ${item.id} is named twice.`, `items[${i}].id`);
    named.add(item.id);
    if (item.deleted === true) removed.add(item.id);
    existing.priceId = item.priceId ?? existing.priceId;
    existing.quantity = item.quantity ?? existing.quantity;
  }
  const left = wanted.filter((w) => w.id === null || !removed.has(w.id));
  if (left.length === 0) throw itemsInvalid('At least one item must remain.');
  if (left.length > MAX_ITEMS) throw itemsInvalid(`Up to ${MAX_ITEMS} items.`);
  if (new Set(left.map((w) => w.priceId)).size !== left.length) throw itemsInvalid('Each price once.');
  return left;
}

/** Only a paid period is prorated: a trialing or paused subscription's items change with no proration lines. */
export function prorates(status: SubscriptionStatus): boolean {
  return status === 'active' || status === 'past_due' || status === 'unpaid';
}

/** `prorationDate`: inside the current period and not after now, else 400 billing_date_invalid. */
export function prorationDateRefusal(at: Date, period: Period, now: Date): ApiError | null {
  if (at >= period.start && at < period.end && at <= now) return null;
  const message = `Must fall inside the current period (${period.start.toISOString()} to ${period.end.toISOString()}) and not after now (${now.toISOString()}).`;
  return new ApiError('billing_date_invalid', `prorationDate: ${message}`, { fields: [{ path: 'prorationDate', message }] });
}

export interface ChangeTerms {
  before: readonly ProratedItem[];
  after: readonly ProratedItem[];
  behavior: ProrationBehavior;
  /** The proration date. */
  at: Date;
  status: SubscriptionStatus;
  anchor: Date;
  period: Period;
  recurrence: Recurrence;
  newRecurrence: Recurrence;
  cancelAt: Date | null;
  unit: ProrationUnit;
  /** The period is the last (canceled at its end, or cut or ended by `cancelAt`): no renewal will take proration lines. */
  lastPeriod?: boolean;
}

export interface ChangePlan {
  /** The invoice made now (`always_invoice` with something to bill, or a change of interval): its lines and period. */
  invoice: { lines: InvoiceLine[]; period: BilledPeriod } | null;
  /** The proration lines kept for the next period's invoice (`create_prorations`). */
  pending: InvoiceLine[];
  /** A change of interval: the new period, from the proration date, which is the new billing cycle anchor. */
  newPeriod: BilledPeriod | null;
}

export function sameRecurrence(a: Recurrence, b: Recurrence): boolean {
  return a.interval === b.interval && a.intervalCount === b.intervalCount;
}

/**
 * What the change bills. A change of interval starts a new period at the proration date, credits
 * the old items' unused time (unless `none`) and bills the new items' whole new period, on an
 * invoice made now; otherwise the proration lines are invoiced now (`always_invoice`, or
 * `create_prorations` in a last period, which no renewal follows), kept for the next renewal
 * (`create_prorations`) or not made (`none`). A whole period is the length of the
 * cycle's period the current one lies in (so a period cut by `cancelAt` credits its share only).
 */
export function planChange(t: ChangeTerms): ChangePlan {
  if (!prorates(t.status)) return { invoice: null, pending: [], newPeriod: null };
  const cycle = periodAt(t.anchor, t.recurrence, t.period.start);
  const window = { at: t.at, end: t.period.end, wholeMs: cycle.end.getTime() - cycle.start.getTime(), unit: t.unit };
  if (!sameRecurrence(t.recurrence, t.newRecurrence)) {
    const newPeriod = periodFrom(t.at, t.newRecurrence, t.at, t.cancelAt);
    const credits = t.behavior === 'none' ? [] : prorationLines(t.before, [], window);
    return { invoice: { lines: [...credits, ...periodLines(t.after, newPeriod, t.unit)], period: newPeriod }, pending: [], newPeriod };
  }
  if (t.behavior === 'none') return { invoice: null, pending: [], newPeriod: null };
  const lines = prorationLines(t.before, t.after, window);
  // Kept for the next period's invoice, unless there is none: then invoiced now, as always_invoice.
  if (t.behavior === 'create_prorations' && t.lastPeriod !== true) return { invoice: null, pending: lines, newPeriod: null };
  return { invoice: lines.length === 0 ? null : { lines, period: { start: t.at, end: t.period.end } }, pending: [], newPeriod: null };
}

/** A change waiting for its invoice (`pending_if_incomplete`), as kept; the public `pendingUpdate` is `{items, expiresAt}`. */
export interface PendingUpdate {
  items: { id?: string; priceId: string; quantity: number }[];
  expiresAt: string;
  invoiceId: string;
  /** A change of interval: the new anchor and period it starts once paid. */
  newPeriod: { start: string; end: string } | null;
}
