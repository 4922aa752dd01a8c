// Proration (DESIGN.md "Proration"): an amount for part of a period, by the second, rounded to the
// nearest cent, half away from zero. Exact in integers: cents times seconds can pass 2^53. A
// change to an item makes two lines, Stripe's way: a credit for the unused time of the old price
// and quantity, a charge for the rest of the period at the new ones; an added item one charge, a
// deleted item one credit. The same lines make a preview and the invoice, so the two are equal to
// the cent.
import type { BilledItem, InvoiceLine } from './invoices';
import { amountForQuantity } from './pricing';

const SECOND_MS = 1000;

/** `cents` for `partMs` of a period `wholeMs` long, counted in whole seconds. */
export function prorate(cents: number, partMs: number, wholeMs: number): number {
  const whole = BigInt(Math.floor(wholeMs / SECOND_MS));
  if (whole <= 0n) throw new RangeError(`a period of ${wholeMs} ms`);
  const part = BigInt(Math.max(0, Math.floor(partMs / SECOND_MS)));
  const product = BigInt(Math.abs(cents)) * (part > whole ? whole : part);
  const rounded = (2n * product + whole) / (2n * whole);
  return Number(rounded) * (cents < 0 ? -1 : 1);
}

// The account's proration setting (DESIGN.md "Proration": by the second, the default, or by the
// day), for the part period up to a billing cycle anchor; the same rounding as `prorate`.

export const PRORATION_UNITS = ['second', 'day'] as const;
export type ProrationUnit = (typeof PRORATION_UNITS)[number];

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * `prorate` counted in the account's unit. By the day the part is counted in whole days, rounded
 * down, and the whole in days (to the nearest: a period of Sri Lankan calendar days, which has no
 * daylight saving, is a whole number of them).
 */
export function prorateIn(unit: ProrationUnit, cents: number, partMs: number, wholeMs: number): number {
  if (unit === 'second') return prorate(cents, partMs, wholeMs);
  const wholeDays = Math.max(1, Math.round(wholeMs / DAY_MS));
  const partDays = Math.floor(Math.max(0, partMs) / DAY_MS);
  return prorate(cents, partDays * DAY_MS, wholeDays * DAY_MS);
}

/** An item of a subscription as a change sees it: what it bills, and which item it is. */
export interface ProratedItem extends BilledItem {
  itemId: string;
}

/** Where a change falls: its proration date, the end of the period it changes, the length of a whole period, and the account's unit. */
export interface ProrationWindow {
  at: Date;
  end: Date;
  wholeMs: number;
  unit: ProrationUnit;
}

/** The credit (`sign` -1) for the item's unused time, or the charge (+1) for the rest of the period. */
export function prorationLine(item: BilledItem, sign: 1 | -1, window: ProrationWindow): InvoiceLine {
  const whole = amountForQuantity(item.terms, item.quantity);
  const amountCents = sign * prorateIn(window.unit, whole, window.end.getTime() - window.at.getTime(), window.wholeMs);
  return {
    description: `${sign < 0 ? 'Unused' : 'Remaining'} time on ${item.quantity} × ${item.productName}`,
    quantity: item.quantity,
    // Per unit, to the cent, half away from zero (the line's amount is exact).
    unitAmountCents: Math.sign(amountCents) * Math.round(Math.abs(amountCents) / item.quantity),
    amountCents,
    periodStart: window.at.toISOString(),
    periodEnd: window.end.toISOString(),
    proration: true,
    priceId: item.priceId,
  };
}

/**
 * The proration lines of a change from the items `before` to the items `after` (matched by
 * `itemId`): in the order of the items before (a changed one's credit, then its charge; a
 * deleted one's credit), then the added ones' charges. An item left as it was makes none.
 */
export function prorationLines(before: readonly ProratedItem[], after: readonly ProratedItem[], window: ProrationWindow): InvoiceLine[] {
  const lines: InvoiceLine[] = [];
  for (const old of before) {
    const changed = after.find((item) => item.itemId === old.itemId);
    if (changed !== undefined && changed.priceId === old.priceId && changed.quantity === old.quantity) continue;
    lines.push(prorationLine(old, -1, window));
    if (changed !== undefined) lines.push(prorationLine(changed, 1, window));
  }
  for (const added of after) if (!before.some((item) => item.itemId === added.itemId)) lines.push(prorationLine(added, 1, window));
  return lines;
}
