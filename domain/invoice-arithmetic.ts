// Invoice arithmetic (DESIGN.md "Invoice arithmetic" and its fine print on taxes): the one place an
// invoice's subtotal, discount, taxes, total, credit applied and amount due are computed. Drafts,
// renewals, previews and upcoming invoices all call `invoiceAmounts`, so a preview equals its
// invoice to the cent. Exact in integers (BigInt where a product can pass 2^53); every rounding is
// to the nearest cent, half away from zero, once per invoice (and per rate).
import type { InvoiceLine } from './invoices';

/** The coupon whose discount is in force for an invoice: exactly one of the two is set. */
export interface CouponTerms {
  id: string;
  /** Above 0, at most 100, two decimals. */
  percentOff: number | null;
  amountOffCents: number | null;
}

export interface TaxRateTerms {
  id: string;
  /** 0 to 100, four decimals. */
  percentage: number;
  inclusive: boolean;
}

/** One entry of an invoice's `taxes`. */
export interface InvoiceTax {
  taxRateId: string;
  percentage: number;
  inclusive: boolean;
  taxableAmountCents: number;
  amountCents: number;
}

export interface InvoiceAdjustments {
  coupon?: CouponTerms | null;
  /** In the order the subscription (or invoice) lists them. */
  taxRates?: readonly TaxRateTerms[];
  /** The customer's credit balance that may be used (credit is positive). */
  creditBalanceCents?: number;
  /** The credit notes issued on this invoice so far. */
  creditNotesCents?: number;
}

export interface InvoiceAmounts {
  subtotalCents: number;
  discountCents: number;
  couponId: string | null;
  taxes: InvoiceTax[];
  /** The exclusive taxes (those added to the total). */
  taxCents: number;
  totalCents: number;
  creditAppliedCents: number;
  creditNotesCents: number;
  amountDueCents: number;
}

/** round(numerator / denominator), half away from zero; denominator > 0. */
function divideRounded(numerator: bigint, denominator: bigint): bigint {
  const magnitude = (2n * (numerator < 0n ? -numerator : numerator) + denominator) / (2n * denominator);
  return numerator < 0n ? -magnitude : magnitude;
}

// Percentages held exactly as integers: percentOff in hundredths, tax rates in ten-thousandths.
const PERCENT_OFF_SCALE = 100n;
const TAX_SCALE = 10_000n;
const scaled = (percentage: number, scale: bigint): bigint => BigInt(Math.round(percentage * Number(scale)));

/**
 * The discount on the discountable lines: a percentage rounded once per invoice, or an amount off
 * of at most the discountable subtotal; nothing when that subtotal is not above zero.
 */
export function discountOf(coupon: CouponTerms | null | undefined, discountableCents: number): number {
  if (coupon === null || coupon === undefined || discountableCents <= 0) return 0;
  if (coupon.amountOffCents !== null) return Math.min(coupon.amountOffCents, discountableCents);
  if (coupon.percentOff === null) throw new RangeError(`coupon ${coupon.id} has neither percentOff nor amountOffCents`);
  return Number(divideRounded(BigInt(discountableCents) * scaled(coupon.percentOff, PERCENT_OFF_SCALE), 100n * PERCENT_OFF_SCALE));
}

/**
 * The taxes on `amountCents` (subtotal − discount): inclusive rates together contain
 * round(a × P / (100 + P)), P the sum of their percentages, split in proportion to their
 * percentages with the rounding's remainder on the last; exclusive rates are each
 * round(net × p / 100) of the net amount (a less the tax contained), which is every entry's
 * taxable amount. Entries in the rates' order.
 */
export function taxesOf(rates: readonly TaxRateTerms[], amountCents: number): InvoiceTax[] {
  const a = BigInt(amountCents);
  const inclusive = rates.filter((rate) => rate.inclusive);
  const sumInclusive = inclusive.reduce((sum, rate) => sum + scaled(rate.percentage, TAX_SCALE), 0n);
  const contained = sumInclusive === 0n ? 0n : divideRounded(a * sumInclusive, 100n * TAX_SCALE + sumInclusive);
  const net = a - contained;
  const inclusiveShares = new Map<string, bigint>();
  let shared = 0n;
  inclusive.forEach((rate, i) => {
    const share = i === inclusive.length - 1 ? contained - shared : divideRounded(contained * scaled(rate.percentage, TAX_SCALE), sumInclusive);
    shared += share;
    inclusiveShares.set(rate.id, share);
  });
  return rates.map((rate) => ({
    taxRateId: rate.id,
    percentage: rate.percentage,
    inclusive: rate.inclusive,
    taxableAmountCents: Number(net),
    amountCents: Number(rate.inclusive ? inclusiveShares.get(rate.id)! : divideRounded(net * scaled(rate.percentage, TAX_SCALE), 100n * TAX_SCALE)),
  }));
}

/**
 * An invoice's amounts from its lines and adjustments. Lines marked not discountable (an invoice
 * item so made, an amount carried over) take no discount; lines marked not taxable (an amount
 * carried over, already taxed on its own invoice) are outside the taxed amount. A negative total
 * is not due: it goes onto the customer's balance, and amount due is never below zero.
 */
export function invoiceAmounts(lines: readonly InvoiceLine[], adjustments: InvoiceAdjustments = {}): InvoiceAmounts {
  let subtotalCents = 0;
  let discountableCents = 0;
  let untaxedCents = 0;
  for (const line of lines) {
    subtotalCents += line.amountCents;
    if (line.discountable !== false) discountableCents += line.amountCents;
    if (line.taxable === false) untaxedCents += line.amountCents;
  }
  const coupon = adjustments.coupon ?? null;
  const discountCents = discountOf(coupon, discountableCents);
  const taxes = taxesOf(adjustments.taxRates ?? [], subtotalCents - untaxedCents - discountCents);
  const taxCents = taxes.reduce((sum, tax) => sum + (tax.inclusive ? 0 : tax.amountCents), 0);
  const totalCents = subtotalCents - discountCents + taxCents;
  const creditAppliedCents = creditApplied(adjustments.creditBalanceCents ?? 0, totalCents);
  const creditNotesCents = adjustments.creditNotesCents ?? 0;
  return {
    subtotalCents,
    discountCents,
    couponId: coupon === null ? null : coupon.id,
    taxes,
    taxCents,
    totalCents,
    creditAppliedCents,
    creditNotesCents,
    amountDueCents: amountDue(totalCents, creditAppliedCents, creditNotesCents),
  };
}

/** The credit balance an invoice of `totalCents` uses: at most the total, none of a negative balance. */
export function creditApplied(creditBalanceCents: number, totalCents: number): number {
  return Math.max(0, Math.min(creditBalanceCents, totalCents));
}

/** What is due of a total once credit applied and credit notes are taken off: never below zero. */
export function amountDue(totalCents: number, creditAppliedCents: number, creditNotesCents: number): number {
  return Math.max(0, totalCents - creditAppliedCents - creditNotesCents);
}
