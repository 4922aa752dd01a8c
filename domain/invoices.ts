// Invoices' pure rules: their statuses and which action each allows, their numbers and their
// lines; their amounts are domain/invoice-arithmetic.ts's.
import { PAYMENT_MIN_CENTS } from './checkout-rules';
import type { Locale } from './locale';
import { amountForQuantity, type PriceTerms } from './pricing';
import { prorateIn, type ProrationUnit } from './proration';
import type { BilledPeriod } from './billing-periods';

export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'void', 'uncollectible'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export const COLLECTION_METHODS = ['charge_automatically', 'send_invoice'] as const;
export type CollectionMethod = (typeof COLLECTION_METHODS)[number];

export type BillingReason = 'subscription_create' | 'subscription_cycle' | 'subscription_update' | 'manual';

export interface InvoiceLine {
  description: string;
  quantity: number;
  /** Negative for credits. */
  unitAmountCents: number;
  amountCents: number;
  periodStart: string | null;
  periodEnd: string | null;
  proration: boolean;
  /** The price the line bills; null for added lines and carried amounts (DESIGN.md, "Proration lines"). */
  priceId: string | null;
  /** False when a coupon does not apply to it (absent: it does). */
  discountable?: boolean;
  /** False when it is outside the taxed amount: an amount carried over, taxed on its own invoice (absent: taxed). */
  taxable?: boolean;
}

/** The hosted invoice page's path in the customer's language (English has no prefix). */
export function invoicePagePath(locale: Locale, id: string): string {
  return `${locale === 'en' ? '' : `/${locale}`}/invoice/${id}`;
}

/** An invoice sent to the customer is recalled to them this many days before its due date. */
export const REMINDER_DAYS_BEFORE_DUE = 3;

/** `INV-000042`: six digits at least, as the spec's form has it (the database writes it too: db/invoices.ts). */
export const INVOICE_NUMBER_FORM = { prefix: 'INV-', digits: 6 } as const;

export function invoiceNumber(n: number): string {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`invoice number ${n}`);
  return `${INVOICE_NUMBER_FORM.prefix}${String(n).padStart(INVOICE_NUMBER_FORM.digits, '0')}`;
}

/**
 * How an invoice's amount due is settled once it is finalised: `charge` (collected: the card, or
 * its page), `paid` at once (nothing is due), or `carry_over`: 1 to 999 cents, below a card
 * payment's minimum, is not charged; the invoice is paid by carrying the amount as a line onto the
 * customer's next invoice (DESIGN.md, "Invoice arithmetic").
 */
export type AmountDueSettlement = 'charge' | 'paid' | 'carry_over';

export function amountDueSettlement(amountDueCents: number): AmountDueSettlement {
  if (!Number.isSafeInteger(amountDueCents) || amountDueCents < 0) throw new RangeError(`amount due ${amountDueCents}`);
  if (amountDueCents === 0) return 'paid';
  return amountDueCents < PAYMENT_MIN_CENTS ? 'carry_over' : 'charge';
}

/** The line a carried amount makes on the invoice that takes it: no price, no period, not a proration, neither discounted nor taxed again. */
export function carriedLine(sourceNumber: string, amountCents: number): InvoiceLine {
  return {
    description: `Carried over from invoice ${sourceNumber} (below the card payment minimum)`,
    quantity: 1,
    unitAmountCents: amountCents,
    amountCents,
    periodStart: null,
    periodEnd: null,
    proration: false,
    priceId: null,
    discountable: false,
    taxable: false,
  };
}

/** The statuses each action may start from (the spec's Invoice transitions). */
export const INVOICE_ACTIONS = {
  finalize: ['draft'],
  void: ['draft', 'open'],
  mark_uncollectible: ['open'],
} as const satisfies Record<string, readonly InvoiceStatus[]>;

export type InvoiceAction = keyof typeof INVOICE_ACTIONS;

export function actionAllowed(action: InvoiceAction, status: InvoiceStatus): boolean {
  return (INVOICE_ACTIONS[action] as readonly InvoiceStatus[]).includes(status);
}

/** What a subscription item bills for a period: its price, product, price terms and quantity. */
export interface BilledItem {
  priceId: string;
  productName: string;
  terms: PriceTerms;
  quantity: number;
}

/**
 * The lines a period of a subscription bills, one per licensed item, in advance: the
 * amount from domain/pricing.ts, prorated for a period cut short (by the second, or in the
 * account's `unit`: the part period up to an anchor); the unit amount
 * the price's own for a whole period of a per-unit price, else the amount per unit rounded to the
 * cent (the line's amount is exact).
 */
export function periodLines(items: readonly BilledItem[], period: BilledPeriod, unit: ProrationUnit = 'second'): InvoiceLine[] {
  const cut = period.fullEnd !== undefined && period.fullEnd.getTime() > period.end.getTime();
  // Metered prices bill in arrears, from usage (domain/usage.ts usageLines): no line in advance.
  return items.filter((item) => item.terms.usageType !== 'metered').map((item) => {
    const whole = amountForQuantity(item.terms, item.quantity);
    const amountCents = cut ? prorateIn(unit, whole, period.end.getTime() - period.start.getTime(), period.fullEnd!.getTime() - period.start.getTime()) : whole;
    const unitAmountCents = item.terms.billingScheme === 'per_unit' && !cut ? item.terms.unitAmountCents : item.quantity === 0 ? 0 : Math.round(amountCents / item.quantity);
    return {
      description: `${item.quantity} × ${item.productName}`,
      quantity: item.quantity,
      unitAmountCents,
      amountCents,
      periodStart: period.start.toISOString(),
      periodEnd: period.end.toISOString(),
      proration: cut,
      priceId: item.priceId,
    };
  });
}

/** The one-off lines added to an invoice (a subscription's `addInvoiceItems`): no period, no proration. */
export function addedLines(items: readonly { description: string; unitAmountCents: number; quantity?: number; discountable?: boolean }[]): InvoiceLine[] {
  return items.map((item) => {
    const quantity = item.quantity ?? 1;
    const line: InvoiceLine = { description: item.description, quantity, unitAmountCents: item.unitAmountCents, amountCents: item.unitAmountCents * quantity, periodStart: null, periodEnd: null, proration: false, priceId: null };
    return item.discountable === false ? { ...line, discountable: false } : line;
  });
}

/**
 * A line as the public Invoice shows it: with both flags spelled out, so that its discount and
 * taxes can be checked by hand, and its fields in the documented order (stored lines come back
 * from jsonb in its own key order).
 */
export function publicLine(line: InvoiceLine): Required<InvoiceLine> {
  const { description, quantity, unitAmountCents, amountCents, periodStart, periodEnd, proration, priceId } = line;
  return { description, quantity, unitAmountCents, amountCents, periodStart, periodEnd, proration, priceId, discountable: line.discountable !== false, taxable: line.taxable !== false };
}

/** A trial's lines: each item for nothing over the trial. */
export function trialLines(items: readonly BilledItem[], trial: BilledPeriod): InvoiceLine[] {
  return items.map((item) => ({
    description: `Trial period for ${item.productName}`,
    quantity: item.quantity,
    unitAmountCents: 0,
    amountCents: 0,
    periodStart: trial.start.toISOString(),
    periodEnd: trial.end.toISOString(),
    proration: false,
    priceId: item.priceId,
  }));
}
