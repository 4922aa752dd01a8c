// Usage billing's pure rules: the bucket an event goes to, the timestamps an event may carry, the
// customer's current window, and the lines a period's usage bills, cents worked out by hand.
import assert from 'node:assert/strict';
import type { BilledItem } from '../../domain/invoices';
import { priceTerms, type PriceTermsInput } from '../../domain/pricing';
import { bucketProblems, bucketStart, currentWindow, timestampProblem, usageLines } from '../../domain/usage';

const t = (iso: string) => new Date(iso);

function item(priceId: string, input: PriceTermsInput): BilledItem {
  const made = priceTerms({ usageType: 'metered', ...input });
  if ('problems' in made) assert.fail(JSON.stringify(made.problems));
  return { priceId, productName: 'API calls', terms: made.terms, quantity: 1 };
}

describe('usage: buckets and timestamps', () => {
  it('an event goes to its day in Sri Lanka (from midnight in Colombo, 18:30 UTC the day before)', () => {
    assert.equal(bucketStart(t('2027-01-10T10:44:59.999Z'), []).toISOString(), '2027-01-09T18:30:00.000Z');
    assert.equal(bucketStart(t('2027-01-10T18:30:00.000Z'), []).toISOString(), '2027-01-10T18:30:00.000Z');
    assert.equal(bucketStart(t('2027-01-10T18:29:59.999Z'), []).toISOString(), '2027-01-09T18:30:00.000Z');
  });

  it('a period ending inside the day, at or before the event, starts its bucket: no bucket straddles a period\'s end, nor a subscription\'s start', () => {
    const end = t('2027-02-01T10:40:15.000Z');
    assert.equal(bucketStart(t('2027-02-01T10:41:00.000Z'), [end]).toISOString(), end.toISOString());
    assert.equal(bucketStart(t('2027-02-01T10:40:15.000Z'), [end]).toISOString(), end.toISOString());
    assert.equal(bucketStart(t('2027-02-01T10:40:14.999Z'), [end]).toISOString(), '2027-01-31T18:30:00.000Z');
    assert.equal(bucketStart(t('2027-02-01T19:05:00.000Z'), [end]).toISOString(), '2027-02-01T18:30:00.000Z');
    // A subscription's first billed instant too: usage before it on that day bills nothing.
    const from = t('2027-01-01T00:00:00.000Z');
    assert.deepEqual([t('2026-12-31T23:00:00.000Z'), t('2027-01-01T00:00:00.000Z')].map((at) => bucketStart(at, [from, end]).toISOString()), ['2026-12-31T18:30:00.000Z', '2027-01-01T00:00:00.000Z']);
  });

  it('a timestamp within the past 35 days and at most 5 minutes ahead of the customer\'s time', () => {
    const now = t('2027-03-01T00:00:00.000Z');
    assert.equal(timestampProblem(t('2027-01-25T00:00:00.000Z'), now), null);
    assert.match(timestampProblem(t('2027-01-24T23:59:59.999Z'), now)!, /past 35 days/);
    assert.equal(timestampProblem(t('2027-03-01T00:05:00.000Z'), now), null);
    assert.match(timestampProblem(t('2027-03-01T00:05:00.001Z'), now)!, /5 minutes ahead/);
  });

  it('a summary\'s range: midnights in Sri Lanka, the end after the start', () => {
    assert.deepEqual(bucketProblems({ startTime: t('2026-12-31T18:30:00Z'), endTime: t('2027-01-01T18:30:00Z') }), []);
    assert.deepEqual(bucketProblems({ startTime: t('2027-01-01T00:00:00Z'), endTime: t('2026-12-31T18:30:00Z') }).map((p) => p.path), ['startTime', 'endTime']);
  });

  it('the current window: the subscription\'s period billing the meter, else the calendar month in Sri Lanka', () => {
    const period = { meterId: 'mtr_a', start: t('2027-01-15T00:00:00Z'), end: t('2027-02-15T00:00:00Z'), from: t('2026-12-15T00:00:00Z') };
    assert.deepEqual(currentWindow('mtr_a', [period], t('2027-01-20T00:00:00Z')), { start: period.start, end: period.end, from: period.from, notInvoicedOnly: true });
    assert.deepEqual(currentWindow('mtr_b', [period], t('2027-01-31T19:00:00Z')), {
      start: t('2027-01-31T18:30:00Z'),
      end: t('2027-02-28T18:30:00Z'),
      from: t('2027-01-31T18:30:00Z'),
      notInvoicedOnly: false,
    });
  });
});

describe('usage: the lines a period\'s usage bills', () => {
  const period = { start: t('2027-01-01T00:00:00Z'), end: t('2027-02-01T00:00:00Z') };
  const line = (billed: BilledItem, usage: number) => usageLines([billed], new Map([[billed.priceId, usage]]), period)[0]!;

  it('per unit: 1234 calls at 2 cents are 2468 cents, unit amount the price\'s', () => {
    assert.deepEqual(line(item('price_a', { unitAmountCents: 2 }), 1234), {
      description: '1234 × API calls (usage)',
      quantity: 1234,
      unitAmountCents: 2,
      amountCents: 2468,
      periodStart: '2027-01-01T00:00:00.000Z',
      periodEnd: '2027-02-01T00:00:00.000Z',
      proration: false,
      priceId: 'price_a',
    });
  });

  it('package: 2001 calls in packages of 1000 at 500 cents are three packages, 1500 cents', () => {
    assert.deepEqual([line(item('price_p', { billingScheme: 'package', unitAmountCents: 500, packageSize: 1000 }), 2001)].map((l) => [l.amountCents, l.unitAmountCents]), [[1500, 1]]);
  });

  it('graduated: 130 at 50 cents for the first 100 and 20 after, one line for all tiers: 5600 cents', () => {
    const tiers = [{ upTo: 100, unitAmountCents: 50 }, { upTo: null, unitAmountCents: 20 }];
    const l = line(item('price_g', { billingScheme: 'tiered', tiersMode: 'graduated', tiers }), 130);
    assert.deepEqual([l.quantity, l.amountCents, l.unitAmountCents], [130, 5600, 43]);
  });

  it('volume: 130, every unit at the tier the whole falls in (20 cents) plus its flat 100: 2700 cents', () => {
    const tiers = [{ upTo: 100, unitAmountCents: 50 }, { upTo: null, unitAmountCents: 20, flatAmountCents: 100 }];
    assert.equal(line(item('price_v', { billingScheme: 'tiered', tiersMode: 'volume', tiers }), 130).amountCents, 2700);
  });

  it('no usage: a line all the same, quantity 0 and 0 cents; licensed items make none', () => {
    const metered = item('price_a', { unitAmountCents: 2 });
    const licensed: BilledItem = { ...item('price_l', { unitAmountCents: 150000 }), terms: { ...metered.terms, usageType: 'licensed' } };
    const lines = usageLines([licensed, metered], new Map(), period);
    assert.deepEqual(lines.map((l) => [l.priceId, l.quantity, l.amountCents, l.unitAmountCents]), [['price_a', 0, 0, 2]]);
  });
});
