// Create a checkout: the hosted page's 30 minutes and its payment, written with the caller's
// Idempotency-Key in one statement (the hottest write), then its lifetime workflow started.
import { amountInRange, checkoutUrl, orderFromLineItems, returnUrlFields, summariseLineItems, type LineItemInput } from '../../domain/checkout-rules';
import { ApiError } from '../../domain/errors';
import type { Locale } from '../../domain/locale';
import { normaliseSriLankanPhone } from '../../domain/phone';
import { monthlyLimitReached, mostUsedForPayment, planOf } from '../../domain/plans';
import { newId } from '../../crypto/ids';
import { newCheckoutRows, openCheckout, type NewCheckoutRows } from '../../db/checkouts';
import type { KeyToRecord } from '../../db/idempotency-keys';
import { checkoutLifetimeStart } from '../../orchestration/starts';
import { checkoutView } from '../../views/checkout';
import { paymentNow } from '../test-clocks/billing-now';
import type { AccountScope, ServiceContext } from '../context';

export interface CheckoutInput {
  amountCents?: number;
  description?: string;
  lineItems?: LineItemInput[];
  locale?: Locale;
  reference?: string;
  customer?: { name: string; email: string; phone?: string };
  successUrl?: string;
  cancelUrl?: string;
  saveCard?: boolean;
}

export interface CreatedCheckout extends NewCheckoutRows {
  view: ReturnType<typeof checkoutView>;
  /** The view as recorded with the Idempotency-Key, serialised once. */
  json: string;
}

/**
 * The amount and description the payment takes, from `lineItems` or from `amountCents` (the schema
 * has made sure exactly one is sent, `amountCents` in range and with a description).
 */
function amountOf(input: Pick<CheckoutInput, 'amountCents' | 'description' | 'lineItems'>) {
  if (input.lineItems !== undefined) {
    const order = orderFromLineItems(input.lineItems);
    if (!amountInRange(order.totalCents)) {
      throw new ApiError('amount', `The line items come to ${order.totalCents} cents; a payment must be 1000 to 100000000 cents.`, {
        fields: [{ path: 'lineItems', message: 'The total must be 1000 to 100000000 cents.' }],
      });
    }
    return { amountCents: order.totalCents, description: input.description ?? summariseLineItems(input.lineItems), order };
  }
  return { amountCents: input.amountCents!, description: input.description!, order: null };
}

/**
 * What is bought, checked where JSON Schema cannot (the line items' total, the return URLs, saved
 * cards on for a live offer to keep the card): a checkout's, and a payment link's for its payers.
 */
export function checkedPurchase(scope: AccountScope, input: Omit<CheckoutInput, 'customer'>): ReturnType<typeof amountOf> {
  const purchase = amountOf(input);
  const fields = returnUrlFields(input);
  if (fields.length > 0) throw new ApiError('VALIDATION_FAILED', 'The body is not valid.', { fields });
  if (input.saveCard === true && scope.mode === 'live' && !scope.account.savedCards) {
    throw new ApiError('saved_cards_off', 'Saved cards are off for this account: a live checkout cannot offer to keep the card.');
  }
  return purchase;
}

/**
 * Opens the checkout unless the month has no room for its payment (`monthly_limit_reached`). The
 * write records `key` with the answer, so a retry with the same key replays it; a payment link's
 * payer and an invoice's have no key, and their payment carries `paymentLinkId` or `invoiceId`.
 * `secretKey`: the body is the merchant's own (not a publishable key's, which anyone may hold), so
 * a `customer` it names is the merchant's customer, whose default card a card kept here may
 * become (services/cards/keep.ts).
 */
export async function createCheckout(
  ctx: ServiceContext,
  scope: AccountScope,
  input: CheckoutInput,
  key: KeyToRecord | null,
  origin: { paymentLinkId?: string; invoiceId?: string; secretKey?: boolean } = {},
): Promise<CreatedCheckout> {
  const { amountCents, description, order } = checkedPurchase(scope, input);
  // The schema's pattern admits only numbers the normaliser reads.
  const phone = input.customer?.phone === undefined ? null : normaliseSriLankanPhone(input.customer.phone)!;
  const { account, mode } = scope;
  // An invoice's payment lives in its customer's time (a test clock's); the checkout's 30 minutes run on the service's.
  const serviceNow = ctx.clock.now();
  const now = origin.invoiceId === undefined ? serviceNow : await paymentNow(ctx, { invoice_id: origin.invoiceId });
  const plan = planOf(ctx.config.plans, account.plan);
  const checkoutId = newId('checkout', now.getTime());
  const locale = input.locale ?? 'en';
  const rows = newCheckoutRows(
    {
      id: newId('payment', now.getTime()),
      accountId: account.id,
      mode,
      amountCents,
      description,
      reference: input.reference ?? null,
      customer: input.customer ? { name: input.customer.name, email: input.customer.email, phone } : null,
      checkoutId,
      paymentLinkId: origin.paymentLinkId ?? null,
      invoiceId: origin.invoiceId ?? null,
      order,
      now,
    },
    {
      id: checkoutId,
      locale,
      url: checkoutUrl(ctx.config.publicBaseUrl, checkoutId, locale),
      success_url: input.successUrl ?? null,
      cancel_url: input.cancelUrl ?? null,
      save_card: input.saveCard ?? false,
      customer_named: input.customer !== undefined && origin.secretKey === true,
      expires_at: new Date(serviceNow.getTime() + ctx.config.checkoutLifetimeMs),
    },
  );
  // The answer is recorded with the key in the write itself, so it is made first.
  const view = checkoutView(rows.checkout, rows.payment);
  const json = JSON.stringify(view);
  const opened = await openCheckout(ctx.db, rows, mostUsedForPayment(plan, amountCents), key === null ? null : { key, answer: { status: 201, json } });
  if (opened.limitReached) throw monthlyLimitReached(account.plan, plan, opened.usedCents);
  const { checkout } = rows;
  ctx.afterCommit(async () => {
    await ctx.workflows.start(checkoutLifetimeStart(checkout));
  });
  return { ...rows, view, json };
}
