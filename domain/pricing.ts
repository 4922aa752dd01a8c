// What a price is and what it costs: the rules of its terms (the spec's Prices section) and the
// amount in cents of a quantity under each billing scheme. One piece of code for the API's
// previews and the invoices alike, so a preview always equals what is charged.
import type { FieldError } from './errors';

export const BILLING_SCHEMES = ['per_unit', 'package', 'tiered'] as const;
export const TIERS_MODES = ['graduated', 'volume'] as const;
export const USAGE_TYPES = ['licensed', 'metered'] as const;

export type BillingScheme = (typeof BILLING_SCHEMES)[number];
export type TiersMode = (typeof TIERS_MODES)[number];
export type UsageType = (typeof USAGE_TYPES)[number];

export const PRICE_LIMITS = {
  maxAmountCents: 100_000_000,
  /** A licensed per-unit price: at least the smallest card payment. */
  licensedPerUnitMinCents: 1000,
  minTiers: 2,
  maxTiers: 10,
  minPackageSize: 2,
  maxPackageSize: 1_000_000,
  maxIntervalCount: 12,
  /** A tier's `upTo`: far above any quantity billed (10000 a subscription item), and exact in int4 and JavaScript alike. */
  maxTierUpTo: 1_000_000_000,
} as const;

export interface Tier {
  /** The last quantity this tier prices; null for the last, open tier. */
  upTo: number | null;
  unitAmountCents: number;
  flatAmountCents: number;
}

/** A price's terms as kept. */
export interface PriceTerms {
  billingScheme: BillingScheme;
  /** Per unit, or per package; 0 for tiered prices. */
  unitAmountCents: number;
  tiersMode: TiersMode | null;
  tiers: Tier[] | null;
  packageSize: number | null;
  usageType: UsageType;
}

/** The terms as a create request sends them (shape already checked by the schema). */
export interface PriceTermsInput {
  billingScheme?: BillingScheme;
  unitAmountCents?: number;
  tiersMode?: TiersMode;
  tiers?: { upTo: number | null; unitAmountCents: number; flatAmountCents?: number }[];
  packageSize?: number;
  usageType?: UsageType;
}

/** Which fields each scheme takes and needs. */
const SCHEME_FIELDS: Record<BillingScheme, { needs: (keyof PriceTermsInput)[]; refuses: (keyof PriceTermsInput)[] }> = {
  per_unit: { needs: ['unitAmountCents'], refuses: ['tiersMode', 'tiers', 'packageSize'] },
  package: { needs: ['unitAmountCents', 'packageSize'], refuses: ['tiersMode', 'tiers'] },
  tiered: { needs: ['tiersMode', 'tiers'], refuses: ['unitAmountCents', 'packageSize'] },
};

function tierProblems(tiers: NonNullable<PriceTermsInput['tiers']>): FieldError[] {
  const problems: FieldError[] = [];
  if (tiers.length < PRICE_LIMITS.minTiers || tiers.length > PRICE_LIMITS.maxTiers) {
    problems.push({ path: 'tiers', message: `From ${PRICE_LIMITS.minTiers} to ${PRICE_LIMITS.maxTiers} tiers.` });
  }
  let previous = 0;
  tiers.forEach((tier, i) => {
    const last = i === tiers.length - 1;
    if (last && tier.upTo !== null) problems.push({ path: `tiers[${i}].upTo`, message: 'The last tier is open: upTo null.' });
    if (!last && tier.upTo === null) problems.push({ path: `tiers[${i}].upTo`, message: 'Only the last tier is open (upTo null).' });
    if (tier.upTo !== null) {
      if (tier.upTo <= previous) problems.push({ path: `tiers[${i}].upTo`, message: `Must be above the previous tier's upTo (${previous}).` });
      previous = Math.max(previous, tier.upTo);
    }
  });
  return problems;
}

/**
 * The terms as kept, or every problem that makes them price nothing (reason `price_invalid`): a
 * scheme's missing or foreign fields, a licensed per-unit price under 1000 cents, tiers out of
 * order or not closed by one open tier.
 */
export function priceTerms(input: PriceTermsInput): { terms: PriceTerms } | { problems: FieldError[] } {
  const billingScheme = input.billingScheme ?? 'per_unit';
  const usageType = input.usageType ?? 'licensed';
  const fields = SCHEME_FIELDS[billingScheme];
  const problems: FieldError[] = [
    ...fields.needs.filter((f) => input[f] === undefined).map((path) => ({ path, message: `Required for a ${billingScheme} price.` })),
    ...fields.refuses.filter((f) => input[f] !== undefined).map((path) => ({ path, message: `Not taken by a ${billingScheme} price.` })),
  ];
  if (billingScheme === 'per_unit' && usageType === 'licensed' && input.unitAmountCents !== undefined && input.unitAmountCents < PRICE_LIMITS.licensedPerUnitMinCents) {
    problems.push({ path: 'unitAmountCents', message: `A licensed per-unit price is at least ${PRICE_LIMITS.licensedPerUnitMinCents} cents (metered and package prices may be lower).` });
  }
  if (billingScheme === 'tiered' && input.tiers !== undefined) problems.push(...tierProblems(input.tiers));
  if (problems.length > 0) return { problems };
  return {
    terms: {
      billingScheme,
      unitAmountCents: input.unitAmountCents ?? 0,
      tiersMode: input.tiersMode ?? null,
      tiers: input.tiers?.map((t) => ({ upTo: t.upTo, unitAmountCents: t.unitAmountCents, flatAmountCents: t.flatAmountCents ?? 0 })) ?? null,
      packageSize: input.packageSize ?? null,
      usageType,
    },
  };
}

function safe(cents: number): number {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`${cents} cents is beyond exact integer money`);
  return cents;
}

/**
 * What `quantity` costs under the terms, in cents:
 * - per unit: the unit amount times the quantity;
 * - package: the package amount times the packages needed, rounded up (11 units in packages of 10
 *   are two packages);
 * - graduated tiers: each tier's units at its unit amount, plus the flat amount of every tier the
 *   quantity reaches;
 * - volume tiers: every unit at the unit amount of the tier the whole quantity falls in, plus that
 *   tier's flat amount.
 * A quantity of 0 costs nothing under every scheme (it reaches no tier).
 */
export function amountForQuantity(terms: PriceTerms, quantity: number): number {
  if (!Number.isSafeInteger(quantity) || quantity < 0) throw new RangeError(`quantity ${quantity}`);
  if (quantity === 0) return 0;
  switch (terms.billingScheme) {
    case 'per_unit':
      return safe(terms.unitAmountCents * quantity);
    case 'package':
      return safe(terms.unitAmountCents * Math.ceil(quantity / terms.packageSize!));
    case 'tiered':
      return safe(terms.tiersMode === 'volume' ? volumeAmount(terms.tiers!, quantity) : graduatedAmount(terms.tiers!, quantity));
  }
}

function graduatedAmount(tiers: Tier[], quantity: number): number {
  let total = 0;
  let below = 0;
  for (const tier of tiers) {
    const upTo = tier.upTo ?? Infinity;
    const units = Math.min(quantity, upTo) - below;
    if (units <= 0) break;
    total += units * tier.unitAmountCents + tier.flatAmountCents;
    below = upTo;
  }
  return total;
}

function volumeAmount(tiers: Tier[], quantity: number): number {
  const tier = tiers.find((t) => t.upTo === null || quantity <= t.upTo)!;
  return quantity * tier.unitAmountCents + tier.flatAmountCents;
}
