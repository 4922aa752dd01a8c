// Properties of the proration code (domain/proration.ts, domain/subscription-changes.ts), checked
// with fast-check over random items, prices of every scheme, periods of every interval, proration
// dates and units: a change and its reverse at the same instant cost nothing; a credit never
// exceeds what was paid for the period; the lines sum to the invoice's total.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { periodBoundary, periodFrom, type Recurrence } from '../../domain/billing-periods';
import { invoiceAmounts } from '../../domain/invoice-arithmetic';
import { periodLines } from '../../domain/invoices';
import { amountForQuantity, type PriceTerms } from '../../domain/pricing';
import { prorateIn, prorationLine, prorationLines, PRORATION_UNITS, type ProratedItem } from '../../domain/proration';
import { planChange, PRORATION_BEHAVIORS } from '../../domain/subscription-changes';

const RUNS = { numRuns: 1000, seed: 0x5eed };
const SECOND = 1000;
const DAY = 24 * 60 * 60 * SECOND;

const perUnit = fc.record({ unitAmountCents: fc.integer({ min: 1000, max: 10_000_000 }) }).map((t): PriceTerms => ({ billingScheme: 'per_unit', ...t, tiersMode: null, tiers: null, packageSize: null, usageType: 'licensed' }));
const inPackages = fc
  .record({ unitAmountCents: fc.integer({ min: 1, max: 1_000_000 }), packageSize: fc.integer({ min: 2, max: 100 }) })
  .map((t): PriceTerms => ({ billingScheme: 'package', ...t, tiersMode: null, tiers: null, usageType: 'licensed' }));
const tiered = fc
  .record({
    mode: fc.constantFrom('graduated' as const, 'volume' as const),
    tiers: fc.array(fc.record({ width: fc.integer({ min: 1, max: 50 }), unitAmountCents: fc.integer({ min: 0, max: 100_000 }), flatAmountCents: fc.integer({ min: 0, max: 50_000 }) }), { minLength: 2, maxLength: 5 }),
  })
  .map(({ mode, tiers }): PriceTerms => {
    let upTo = 0;
    const shaped = tiers.map((t, i) => ({ upTo: i === tiers.length - 1 ? null : (upTo += t.width), unitAmountCents: t.unitAmountCents, flatAmountCents: t.flatAmountCents }));
    return { billingScheme: 'tiered', unitAmountCents: 0, tiersMode: mode, tiers: shaped, packageSize: null, usageType: 'licensed' };
  });
const terms = fc.oneof(perUnit, inPackages, tiered);
const quantity = fc.integer({ min: 1, max: 10_000 });
const item = (itemId: string) => fc.record({ itemId: fc.constant(itemId), priceId: fc.integer({ min: 1, max: 8 }).map((n) => `price_${n}`), productName: fc.constant('Plan'), terms, quantity });
const items = fc.uniqueArray(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }).chain((ids) => fc.tuple(...ids.map((id) => item(`si_${id}`))));

/** The items after a change: each kept, given a new quantity, a new price, or deleted; perhaps one added. */
const change = (before: ProratedItem[]) =>
  fc
    .tuple(
      fc.tuple(...before.map((old) => fc.oneof(fc.constant([old]), quantity.map((q) => [{ ...old, quantity: q }]), item(old.itemId).map((replaced) => [replaced]), fc.constant([])))),
      fc.option(item('si_new'), { nil: undefined }),
    )
    .map(([kept, added]) => [...kept.flat(), ...(added === undefined ? [] : [added])]);

const recurrence = fc.record({ interval: fc.constantFrom('day' as const, 'week' as const, 'month' as const, 'year' as const), intervalCount: fc.integer({ min: 1, max: 12 }) });
/** A period of a cycle anchored at some second of 2027, and a proration date (a whole second) inside it. */
const period = (rec: Recurrence) =>
  fc.record({ anchorSeconds: fc.integer({ min: 0, max: 400 * 86400 }), index: fc.integer({ min: 0, max: 5 }), share: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }) }).map(({ anchorSeconds, index, share }) => {
    const anchor = new Date(Date.UTC(2027, 0, 1) + anchorSeconds * SECOND);
    const start = periodBoundary(anchor, rec, index);
    const end = periodBoundary(anchor, rec, index + 1);
    const at = new Date(start.getTime() + Math.floor(share * ((end.getTime() - start.getTime()) / SECOND)) * SECOND);
    return { anchor, start, end, at };
  });
const unit = fc.constantFrom(...PRORATION_UNITS);
const sum = (lines: { amountCents: number }[]) => lines.reduce((total, line) => total + line.amountCents, 0);

describe('proration: properties (fast-check)', () => {
  it('a change and its reverse at the same instant cost nothing: their lines together sum to 0', () => {
    const arbitrary = items.chain((before) => fc.tuple(fc.constant(before), change(before), recurrence.chain(period), unit));
    fc.assert(
      fc.property(arbitrary, ([before, after, { start, end, at }, u]) => {
        const window = { at, end, wholeMs: end.getTime() - start.getTime(), unit: u };
        assert.equal(sum(prorationLines(before, after, window)) + sum(prorationLines(after, before, window)), 0);
      }),
      RUNS,
    );
  });

  it('a credit never exceeds what was paid for the period: a whole period, the rest of one charged by an earlier change, or one cut short by cancelAt', () => {
    const arbitrary = fc.tuple(item('si_1'), recurrence.chain((rec) => fc.tuple(fc.constant(rec), period(rec))), unit, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }));
    fc.assert(
      fc.property(arbitrary, ([it, [rec, { anchor, start, end, at }], u, earlierShare, cancelShare]) => {
        const wholeMs = end.getTime() - start.getTime();
        const credit = -prorationLine(it, -1, { at, end, wholeMs, unit: u }).amountCents;
        assert.ok(credit >= 0 && credit <= amountForQuantity(it.terms, it.quantity), 'at most the whole period\'s amount');
        const earlier = new Date(start.getTime() + Math.floor(earlierShare * ((at.getTime() - start.getTime()) / SECOND)) * SECOND);
        assert.ok(credit <= prorationLine(it, 1, { at: earlier, end, wholeMs, unit: u }).amountCents, 'at most what an earlier change charged for the rest of the period');
        const cancelAt = new Date(at.getTime() + SECOND + Math.floor(cancelShare * Math.max(0, (end.getTime() - at.getTime()) / SECOND - 1)) * SECOND);
        const cut = periodFrom(anchor, rec, start, cancelAt);
        const [paid] = periodLines([it], cut, u);
        const cutCredit = -prorationLine(it, -1, { at, end: cut.end, wholeMs, unit: u }).amountCents;
        assert.ok(cutCredit <= paid!.amountCents, `credit ${cutCredit} of a period cut short that billed ${paid!.amountCents}`);
      }),
      RUNS,
    );
  });

  it('the lines of every plan sum to its invoice\'s total, and its proration lines lie from the proration date to the period\'s end', () => {
    const arbitrary = items.chain((before) =>
      fc.tuple(fc.constant(before), change(before), recurrence.chain((rec) => fc.tuple(fc.constant(rec), period(rec), fc.option(recurrence, { nil: undefined }))), fc.constantFrom(...PRORATION_BEHAVIORS), unit),
    );
    fc.assert(
      fc.property(arbitrary, ([before, after, [rec, { anchor, start, end, at }, other], behavior, u]) => {
        fc.pre(after.length > 0);
        const plan = planChange({ before, after, behavior, at, status: 'active', anchor, period: { start, end }, recurrence: rec, newRecurrence: other ?? rec, cancelAt: null, unit: u });
        for (const lines of [plan.pending, plan.invoice?.lines ?? []]) {
          const totals = invoiceAmounts(lines);
          assert.deepEqual([totals.subtotalCents, totals.totalCents, totals.amountDueCents], [sum(lines), sum(lines), Math.max(0, sum(lines))]);
          if (plan.newPeriod === null) for (const line of lines) assert.deepEqual([line.proration, line.periodStart, line.periodEnd], [true, at.toISOString(), end.toISOString()]);
        }
      }),
      RUNS,
    );
  });

  it('by the day: the remaining whole days, rounded down, over the period\'s whole days', () => {
    // 14 days and 23 hours left of 28: 14 days, half; by the second, 53422.62 rounded.
    assert.equal(prorateIn('day', 100000, 14 * DAY + 23 * 3600_000, 28 * DAY), 50000);
    assert.equal(prorateIn('second', 100000, 14 * DAY + 23 * 3600_000, 28 * DAY), 53423);
  });
});
