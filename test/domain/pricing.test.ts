// The amount of a price for a quantity under every scheme, and the rules of a price's terms, with
// the cents worked out by hand.
import assert from 'node:assert/strict';
import { amountForQuantity, priceTerms, type PriceTerms, type PriceTermsInput, type Tier } from '../../domain/pricing';

function terms(input: PriceTermsInput): PriceTerms {
  const made = priceTerms(input);
  if ('problems' in made) assert.fail(JSON.stringify(made.problems));
  return made.terms;
}

const problemPaths = (input: PriceTermsInput) => {
  const made = priceTerms(input);
  return 'problems' in made ? made.problems.map((p) => p.path) : [];
};

// 1 to 5 at Rs 10.00; 6 to 10 at Rs 8.00 plus Rs 5.00 once reached; above 10 at Rs 6.00.
const threeTiers: Tier[] = [
  { upTo: 5, unitAmountCents: 1000, flatAmountCents: 0 },
  { upTo: 10, unitAmountCents: 800, flatAmountCents: 500 },
  { upTo: null, unitAmountCents: 600, flatAmountCents: 0 },
];

describe('pricing: the amount of a quantity', () => {
  it('per unit: the unit amount times the quantity, up to 10000 × Rs 1,000,000 exactly', () => {
    const perUnit = terms({ unitAmountCents: 1500 });
    assert.deepEqual([0, 1, 3].map((q) => amountForQuantity(perUnit, q)), [0, 1500, 4500]);
    assert.equal(amountForQuantity(terms({ unitAmountCents: 100_000_000 }), 10_000), 1_000_000_000_000);
  });

  it('package: packages rounded up (11 units in tens are two packages); none for 0', () => {
    const tens = terms({ billingScheme: 'package', unitAmountCents: 2500, packageSize: 10 });
    assert.deepEqual([0, 1, 10, 11, 20, 21].map((q) => amountForQuantity(tens, q)), [0, 2500, 2500, 5000, 5000, 7500]);
  });

  it('graduated: each tier its own units at its price, and the flat amount of each tier reached', () => {
    const graduated = terms({ billingScheme: 'tiered', tiersMode: 'graduated', tiers: threeTiers });
    // 1: 1000; 5: 5 × 1000; 6: 5000 + 800 + 500; 10: 5000 + 5 × 800 + 500; 11: 9500 + 600; 25: 9500 + 15 × 600.
    assert.deepEqual([0, 1, 5, 6, 10, 11, 25].map((q) => amountForQuantity(graduated, q)), [0, 1000, 5000, 6300, 9500, 10100, 18500]);
  });

  it('volume: every unit at the tier the whole quantity falls in, plus that tier\'s flat amount', () => {
    const volume = terms({ billingScheme: 'tiered', tiersMode: 'volume', tiers: threeTiers });
    // 5: 5 × 1000; 6: 6 × 800 + 500; 10: 10 × 800 + 500; 11: 11 × 600; 25: 25 × 600.
    assert.deepEqual([0, 1, 5, 6, 10, 11, 25].map((q) => amountForQuantity(volume, q)), [0, 1000, 5000, 5300, 8500, 6600, 15000]);
  });

  it('a flat-fee first tier: Rs 1,500 for the first seat, Rs 200 each after (graduated)', () => {
    const seats = terms({
      billingScheme: 'tiered',
      tiersMode: 'graduated',
      tiers: [
        { upTo: 1, unitAmountCents: 0, flatAmountCents: 150_000 },
        { upTo: null, unitAmountCents: 20_000 },
      ],
    });
    assert.deepEqual([1, 2, 3].map((q) => amountForQuantity(seats, q)), [150_000, 170_000, 190_000]);
  });

  it('refuses a quantity that is negative or not an integer', () => {
    const perUnit = terms({ unitAmountCents: 1500 });
    assert.throws(() => amountForQuantity(perUnit, -1), RangeError);
    assert.throws(() => amountForQuantity(perUnit, 1.5), RangeError);
  });
});

describe('pricing: the rules of a price\'s terms', () => {
  it('defaults: per unit, licensed; flat amounts 0', () => {
    assert.deepEqual(terms({ unitAmountCents: 1000 }), { billingScheme: 'per_unit', unitAmountCents: 1000, tiersMode: null, tiers: null, packageSize: null, usageType: 'licensed' });
    assert.deepEqual(terms({ billingScheme: 'tiered', tiersMode: 'volume', tiers: [{ upTo: 3, unitAmountCents: 0 }, { upTo: null, unitAmountCents: 1 }] }).tiers, [
      { upTo: 3, unitAmountCents: 0, flatAmountCents: 0 },
      { upTo: null, unitAmountCents: 1, flatAmountCents: 0 },
    ]);
  });

  it('a licensed per-unit price is at least 1000 cents; metered and package prices may be lower', () => {
    assert.deepEqual(problemPaths({ unitAmountCents: 999 }), ['unitAmountCents']);
    assert.deepEqual(problemPaths({ unitAmountCents: 1000 }), []);
    assert.deepEqual(problemPaths({ unitAmountCents: 5, usageType: 'metered' }), []);
    assert.deepEqual(problemPaths({ billingScheme: 'package', unitAmountCents: 5, packageSize: 100 }), []);
  });

  it('each scheme needs its fields and refuses the others', () => {
    assert.deepEqual(problemPaths({}), ['unitAmountCents']);
    assert.deepEqual(problemPaths({ unitAmountCents: 1000, packageSize: 10, tiersMode: 'volume' }), ['tiersMode', 'packageSize']);
    assert.deepEqual(problemPaths({ billingScheme: 'package', unitAmountCents: 1000 }), ['packageSize']);
    assert.deepEqual(problemPaths({ billingScheme: 'tiered', unitAmountCents: 1000 }), ['tiersMode', 'tiers', 'unitAmountCents']);
  });

  it('tiers: 2 to 10, each upTo above the last, only the last open', () => {
    const tiered = (tiers: PriceTermsInput['tiers']) => problemPaths({ billingScheme: 'tiered', tiersMode: 'graduated', tiers });
    const open = { upTo: null, unitAmountCents: 100 };
    assert.deepEqual(tiered([open]), ['tiers']);
    assert.deepEqual(tiered([...Array.from({ length: 10 }, (_, i) => ({ upTo: i + 1, unitAmountCents: 100 })), open]), ['tiers']);
    assert.deepEqual(tiered([...Array.from({ length: 9 }, (_, i) => ({ upTo: i + 1, unitAmountCents: 100 })), open]), []);
    assert.deepEqual(tiered([{ upTo: 5, unitAmountCents: 100 }, { upTo: 5, unitAmountCents: 90 }, open]), ['tiers[1].upTo']);
    assert.deepEqual(tiered([{ upTo: 5, unitAmountCents: 100 }, { upTo: 10, unitAmountCents: 90 }]), ['tiers[1].upTo']);
    assert.deepEqual(tiered([open, { upTo: 10, unitAmountCents: 90 }, open]), ['tiers[0].upTo']);
  });
});
