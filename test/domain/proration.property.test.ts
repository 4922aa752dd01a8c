// Properties of the proration code (domain/proration.ts, domain/subscription-changes.ts) over
// many random items, prices of every scheme, periods, proration dates and units, from fixed
// seeds (a failure names its seed and case): a change and its reverse at the same instant cost
// nothing; a credit never exceeds what was paid for the period; the lines sum to the invoice's
// total. (Written with our own seeded generator: fast-check is not among the installed packages.)
import assert from 'node:assert/strict';
import { periodBoundary, periodFrom, type Recurrence } from '../../domain/billing-periods';
import { invoiceTotals, periodLines } from '../../domain/invoices';
import { amountForQuantity, type PriceTerms } from '../../domain/pricing';
import { prorateIn, prorationLine, prorationLines, type ProratedItem, type ProrationUnit } from '../../domain/proration';
import { planChange, PRORATION_BEHAVIORS } from '../../domain/subscription-changes';
import { draws, random } from '../support/random';

const RUNS = 2000;
const DAY = 24 * 60 * 60 * 1000;

function generator(seed: number) {
  const { int, pick, chance } = draws(random(seed));
  const terms = (): PriceTerms => {
    const scheme = pick(['per_unit', 'package', 'tiered'] as const);
    if (scheme === 'per_unit') return { billingScheme: scheme, unitAmountCents: int(1000, 10_000_000), tiersMode: null, tiers: null, packageSize: null, usageType: 'licensed' };
    if (scheme === 'package') return { billingScheme: scheme, unitAmountCents: int(1, 1_000_000), tiersMode: null, tiers: null, packageSize: int(2, 100), usageType: 'licensed' };
    const count = int(2, 5);
    let upTo = 0;
    const tiers = Array.from({ length: count }, (_, i) => ({ upTo: i === count - 1 ? null : (upTo += int(1, 50)), unitAmountCents: int(0, 100_000), flatAmountCents: int(0, 50_000) }));
    return { billingScheme: scheme, unitAmountCents: 0, tiersMode: pick(['graduated', 'volume'] as const), tiers, packageSize: null, usageType: 'licensed' };
  };
  let ids = 0;
  const item = (): ProratedItem => ({ itemId: `si_${++ids}`, priceId: `price_${int(1, 8)}`, productName: 'Plan', terms: terms(), quantity: int(1, 10000) });
  const items = (): ProratedItem[] => {
    const list = Array.from({ length: int(1, 4) }, item);
    return list.filter((it, i) => list.findIndex((o) => o.priceId === it.priceId) === i);
  };
  /** Some items kept, some changed, some deleted, some added. */
  const changed = (before: ProratedItem[]): ProratedItem[] => [
    ...before.flatMap((it) => (chance(0.2) ? [] : chance(0.5) ? [{ ...it, quantity: int(1, 10000) }] : chance(0.5) ? [{ ...item(), itemId: it.itemId }] : [it])),
    ...(chance(0.4) ? [item()] : []),
  ];
  const recurrence = (): Recurrence => ({ interval: pick(['day', 'week', 'month', 'year'] as const), intervalCount: int(1, 12) });
  /** A period of the cycle anchored at a random instant, and a proration date inside it. */
  const window = (rec: Recurrence) => {
    const anchor = new Date(Date.UTC(2027, 0, 1) + int(0, 400) * DAY + int(0, DAY / 1000) * 1000);
    const index = int(0, 5);
    const start = periodBoundary(anchor, rec, index);
    const end = periodBoundary(anchor, rec, index + 1);
    const at = new Date(start.getTime() + int(0, (end.getTime() - start.getTime()) / 1000 - 1) * 1000);
    return { anchor, start, end, at };
  };
  const unit = (): ProrationUnit => pick(['second', 'day'] as const);
  return { int, pick, chance, item, items, changed, recurrence, window, unit };
}

const sum = (lines: { amountCents: number }[]) => lines.reduce((total, line) => total + line.amountCents, 0);

function eachCase(name: string, check: (g: ReturnType<typeof generator>, run: number) => void) {
  it(name, () => {
    for (let run = 0; run < RUNS; run++) {
      const seed = 0x5eed + run;
      try {
        check(generator(seed), run);
      } catch (err) {
        throw new Error(`seed ${seed}: ${(err as Error).message}`);
      }
    }
  });
}

describe('proration: properties over random changes', () => {
  eachCase('a change and its reverse at the same instant cost nothing (their lines together sum to 0)', (g) => {
    const before = g.items();
    const after = g.changed(before);
    const rec = g.recurrence();
    const { start, end, at } = g.window(rec);
    const window = { at, end, wholeMs: end.getTime() - start.getTime(), unit: g.unit() };
    assert.equal(sum(prorationLines(before, after, window)) + sum(prorationLines(after, before, window)), 0);
  });

  eachCase('a credit never exceeds what was paid for the period: a whole period, one begun later by a change, or one cut short by cancelAt', (g) => {
    const item = g.item();
    const rec = g.recurrence();
    const { anchor, start, end, at } = g.window(rec);
    const unit = g.unit();
    const wholeMs = end.getTime() - start.getTime();
    const credit = -prorationLine(item, -1, { at, end, wholeMs, unit }).amountCents;
    assert.ok(credit >= 0 && credit <= amountForQuantity(item.terms, item.quantity), 'at most the whole period\'s amount');
    // Charged from an earlier change: the credit at a later instant is at most that charge.
    const earlier = new Date(start.getTime() + g.int(0, (at.getTime() - start.getTime()) / 1000) * 1000);
    assert.ok(credit <= prorationLine(item, 1, { at: earlier, end, wholeMs, unit }).amountCents, 'at most what a change charged for the rest of the period');
    // Cut short by a cancelAt after the proration date: its credit is at most what the cut period billed.
    const cancelAt = new Date(at.getTime() + g.int(1, Math.max(1, (end.getTime() - at.getTime()) / 1000)) * 1000);
    const cut = periodFrom(anchor, rec, start, cancelAt);
    const [paid] = periodLines([item], cut);
    const cutCredit = -prorationLine(item, -1, { at, end: cut.end, wholeMs, unit: 'second' }).amountCents;
    assert.ok(cutCredit <= paid!.amountCents, `credit ${cutCredit} of a period that billed ${paid!.amountCents}`);
  });

  eachCase('the lines of every plan sum to the invoice\'s total, and its proration lines lie in the period from the proration date', (g) => {
    const before = g.items();
    const after = g.changed(before).filter((it) => it.quantity > 0);
    if (after.length === 0) return;
    const rec = g.recurrence();
    const { anchor, start, end, at } = g.window(rec);
    const plan = planChange({
      before,
      after,
      behavior: g.pick(PRORATION_BEHAVIORS),
      at,
      status: 'active',
      anchor,
      period: { start, end },
      recurrence: rec,
      newRecurrence: g.chance(0.2) ? g.recurrence() : rec,
      cancelAt: null,
      unit: g.unit(),
    });
    for (const lines of [plan.pending, plan.invoice?.lines ?? []]) {
      const totals = invoiceTotals(lines);
      assert.equal(totals.subtotalCents, sum(lines));
      assert.equal(totals.totalCents, sum(lines));
      assert.equal(totals.amountDueCents, Math.max(0, sum(lines)));
      for (const line of lines.filter((l) => l.proration && plan.newPeriod === null)) assert.deepEqual([line.periodStart, line.periodEnd], [at.toISOString(), end.toISOString()]);
    }
  });

  it('by the day: remaining whole days rounded down, over the period\'s whole days', () => {
    // 14 days and 23 hours left of 28: 14 days, half.
    assert.equal(prorateIn('day', 100000, 14 * DAY + 23 * 3600_000, 28 * DAY), 50000);
    assert.equal(prorateIn('second', 100000, 14 * DAY + 23 * 3600_000, 28 * DAY), 53423);
  });
});
