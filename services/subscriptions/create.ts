// Create a subscription (POST /v1/subscriptions): its customer (found or made), its items (active
// prices of this mode, each once, on one interval), its first period from now in the customer's
// time (cut at `cancelAt` when that comes first), and its first invoice, finalised, with any
// `addInvoiceItems` on it: `send_invoice` subscriptions are `active` at once, their invoice to be
// paid by its due date; `charge_automatically` ones are `incomplete` until the first invoice is
// paid, charged at once by its collection workflow to the card (`cardId`, else the customer's
// default), or, with none, paid by the customer at `checkoutUrl` (the invoice's page). With a
// trial (`trialDays` or `trialEnd`) it is `trialing` instead: its first invoice bills nothing for
// the trial, and the paid periods are anchored at the trial's end. Without one they are anchored
// at `billingCycleAnchor` (domain/billing-anchor.ts; the account's default when none is named):
// the first period is the part up to it, prorated in the account's unit, and when that is worth
// less than a card payment's minimum its lines wait for the first renewal invoice, the first
// invoice owing nothing (paid at once, the subscription active). Its workflow
// (workflows/subscription.ts) starts after the commit; on a test clock its first wait is written
// here, with it.
import { newId } from '../../crypto/ids';
import type { CustomerRow } from '../../db/customers';
import { findPricedRow, type PricedRow } from '../../db/prices';
import { insertSubscription, updateSubscription, type PricedItem, type SubscriptionItemRow, type SubscriptionRow } from '../../db/subscriptions';
import { recordEvent } from '../../db/events';
import { periodFrom, trialEndAfterDays } from '../../domain/billing-periods';
import { returnUrlFields } from '../../domain/checkout-rules';
import { invoiceAmounts } from '../../domain/invoice-arithmetic';
import { addedLines, trialLines } from '../../domain/invoices';
import { billingCycleAnchorAt, partPeriodDeferred } from '../../domain/billing-anchor';
import { billingDateRefusal, type TrialEndBehavior } from '../../domain/subscription-rules';
import { ApiError } from '../../domain/errors';
import type { CollectionMethod } from '../../domain/invoices';
import { subscriptionStart } from '../../orchestration/starts';
import { subscriptionView } from '../../views/subscription';
import type { AccountScope, TransactionContext } from '../context';
import { createCustomer } from '../customers/create';
import { DEFAULT_DAYS_UNTIL_DUE } from '../invoices/create';
import { findOwned } from '../owned';
import { priceUnavailable } from '../prices/usable';
import { billingNowForNew } from '../test-clocks/billing-now';
import { checkMetersFree } from './meters-billed';
import { billedItems, billPeriod, subscriptionLines } from './bill-period';
import { invoiceCard } from '../invoices/collect';
import { putSubscriptionWait } from './reschedule';
import { checkUsableCard } from './usable-card';
import { applyCoupon, validCoupon } from '../coupons/redeem';
import { couponTerms } from '../../views/coupon';
import { usableTaxRates } from '../tax-rates/usable';
import { discountFrom } from '../../domain/coupons';
import { subscriptionChanged } from '../entitlements/refresh-summary';

export interface SubscriptionInput {
  customerId?: string;
  customer?: { email: string; name?: string; phone?: string; locale?: 'en' | 'si' | 'ta' };
  priceId?: string;
  quantity?: number;
  items?: { priceId: string; quantity?: number }[];
  collectionMethod?: CollectionMethod;
  cardId?: string;
  daysUntilDue?: number;
  reference?: string;
  successUrl?: string;
  cancelUrl?: string;
  trialDays?: number;
  trialEnd?: string;
  trialEndBehavior?: TrialEndBehavior;
  cancelAt?: string;
  addInvoiceItems?: { description: string; unitAmountCents: number; quantity?: number }[];
  billingCycleAnchor?: string;
  couponId?: string;
  taxRateIds?: string[];
}

/** Return URLs (after the first payment on the hosted page) are checked as a checkout's. */
function returnUrlsRefusal(input: SubscriptionInput): ApiError | null {
  const fields = returnUrlFields(input);
  return fields.length === 0 ? null : new ApiError('VALIDATION_FAILED', 'The body is not valid.', { fields });
}

const itemsInvalid = (message: string, path = 'items') => new ApiError('items_invalid', message, { fields: [{ path, message }] });

export async function createSubscription(ctx: TransactionContext, scope: AccountScope, input: SubscriptionInput): Promise<{ subscription: SubscriptionRow; view: ReturnType<typeof subscriptionView> }> {
  const customer =
    input.customer !== undefined ? (await createCustomer(ctx, scope, input.customer)).customer : await findOwned<CustomerRow>(ctx.db, 'customers', input.customerId!, scope, 'customer');
  const asked = input.items ?? [{ priceId: input.priceId!, quantity: input.quantity }];
  if (new Set(asked.map((i) => i.priceId)).size !== asked.length) throw itemsInvalid('Each price once.');
  const prices: PricedRow[] = [];
  for (const [i, item] of asked.entries()) {
    const price = await findPricedRow(ctx.db, item.priceId);
    // The spec's items_invalid ("not active prices of yours"), the same for a price of another
    // account as for none, so an answer tells nothing of other accounts' prices.
    if (price === undefined || price.account_id !== scope.account.id) throw itemsInvalid(`No price of yours with id ${item.priceId}.`, input.items === undefined ? 'priceId' : `items[${i}].priceId`);
    const refusal = priceUnavailable(price, scope.mode);
    if (refusal !== null) throw refusal;
    prices.push(price);
  }
  const recurrence = { interval: prices[0]!.interval, intervalCount: prices[0]!.interval_count };
  if (prices.some((p) => p.interval !== recurrence.interval || p.interval_count !== recurrence.intervalCount)) throw itemsInvalid('Every item\'s price bills on the same interval.');

  const owner = { accountId: scope.account.id, mode: scope.mode };
  await checkMetersFree(ctx, { ...owner, customerId: customer.id, id: null }, prices, input.items === undefined ? 'priceId' : 'items');
  const taxRates = await usableTaxRates(ctx, owner, input.taxRateIds ?? []);
  const collectionMethod = input.collectionMethod ?? 'charge_automatically';
  const refusal = returnUrlsRefusal(input);
  if (refusal !== null) throw refusal;
  if (scope.mode === 'live' && !scope.account.savedCards) throw new ApiError('saved_cards_off', 'Saved cards are off for this account: a live subscription keeps the customer\'s card for its renewals.');
  if (input.cardId !== undefined) await checkUsableCard(ctx, customer, input.cardId);
  const now = await billingNowForNew(ctx, customer);
  const coupon = input.couponId === undefined ? null : await validCoupon(ctx, owner, input.couponId);
  const discount = coupon === null ? null : discountFrom(couponTerms(coupon), now);
  const trialEnd = input.trialDays !== undefined ? trialEndAfterDays(now, input.trialDays) : input.trialEnd !== undefined ? new Date(input.trialEnd) : null;
  const cancelAt = input.cancelAt === undefined ? null : new Date(input.cancelAt);
  const dateRefusal = (trialEnd === null ? null : billingDateRefusal(input.trialDays !== undefined ? 'trialDays' : 'trialEnd', trialEnd, now)) ?? (cancelAt === null ? null : billingDateRefusal('cancelAt', cancelAt, now));
  if (dateRefusal !== null) throw dateRefusal;
  // A trial's paid periods are counted from its end; without one, from the anchor (the account's
  // default when the create names none), the part period up to it billed first.
  const trial = trialEnd !== null;
  const cycleAnchor = billingCycleAnchorAt(input.billingCycleAnchor ?? (trial ? 'now' : scope.account.billingCycleAnchor), recurrence, now, trial);
  const anchor = trialEnd ?? cycleAnchor;
  const firstPeriod = trialEnd !== null ? { start: now, end: trialEnd } : periodFrom(anchor, recurrence, now, cancelAt);
  const id = newId('subscription', now.getTime());
  const items: SubscriptionItemRow[] = asked.map((item) => ({ id: newId('subscriptionItem', now.getTime()), subscription_id: id, price_id: item.priceId, quantity: item.quantity ?? 1, created_at: now }));
  // With their prices, in the order of their ids (as asked).
  const priced: PricedItem[] = items.map((item, i) => ({ ...item, price: prices[i]! }));
  const firstLines = trial ? trialLines(billedItems(priced), firstPeriod) : subscriptionLines(priced, firstPeriod, scope.account.proration);
  // A part period up to the anchor below a card payment's minimum waits for the first renewal invoice.
  const deferred = cycleAnchor > now && partPeriodDeferred(invoiceAmounts(firstLines).subtotalCents) ? firstLines : null;
  const subscription: SubscriptionRow = {
    id,
    account_id: scope.account.id,
    mode: scope.mode,
    customer_id: customer.id,
    // Charged to the card: incomplete until the first invoice is paid.
    status: trialEnd !== null ? 'trialing' : collectionMethod === 'send_invoice' ? 'active' : 'incomplete',
    billing_cycle_anchor: anchor,
    current_period_start: firstPeriod.start,
    current_period_end: firstPeriod.end,
    cancel_at_period_end: false,
    cancel_at: cancelAt,
    canceled_at: null,
    ended_at: null,
    cancel_reason: null,
    cancellation_details: { reason: cancelAt === null ? null : 'cancellation_requested', feedback: null, comment: null },
    trial_start: trialEnd === null ? null : now,
    trial_end: trialEnd,
    trial_end_behavior: input.trialEndBehavior ?? 'create_invoice',
    trial_notice_for: null,
    upcoming_notice_for: null,
    paused_at: null,
    collection_method: collectionMethod,
    // Only an invoice sent to the customer has a due date.
    days_until_due: input.daysUntilDue ?? (collectionMethod === 'send_invoice' ? DEFAULT_DAYS_UNTIL_DUE : null),
    card_id: input.cardId ?? null,
    card_missing_since: null,
    latest_invoice_id: null,
    checkout_id: null,
    checkout_url: null,
    reference: input.reference ?? null,
    success_url: input.successUrl ?? null,
    cancel_url: input.cancelUrl ?? null,
    test_clock_id: customer.test_clock_id,
    pending_update: null,
    prorations_pending: false,
    pause_behavior: null,
    pause_resumes_at: null,
    deferred_lines: deferred,
    discount,
    tax_rates: taxRates,
    created_at: now,
  };
  await insertSubscription(ctx.db, subscription, items);
  const lines = [...(deferred === null ? firstLines : []), ...addedLines(input.addInvoiceItems ?? [])];
  const invoice = await billPeriod(ctx, subscription, lines, firstPeriod, 'subscription_create', now);
  // Nothing to charge the first invoice to: the customer pays it on its page, agreeing to keep the card.
  const awaitsPage = invoice.status === 'open' && collectionMethod === 'charge_automatically' && (await invoiceCard(ctx.db, invoice)) === null;
  const created = await updateSubscription(ctx.db, subscription.id, { latest_invoice_id: invoice.id, ...(awaitsPage ? { checkout_url: invoice.hosted_url } : {}) });
  // Counted as applied last, in the subscription's transaction (not counted if it fails): a
  // coupon many sign up with at once is locked only from here to the commit.
  if (coupon !== null) await applyCoupon(ctx, owner, coupon.id);
  const view = subscriptionView(created, priced);
  await recordEvent(ctx.db, { accountId: scope.account.id, mode: scope.mode, type: 'customer.subscription.created', data: view, now });
  // Trialing, or active from the start (sent invoices); one incomplete until its first invoice is
  // paid is told of when it is (services/invoices/collect.ts), maybe at once, in billPeriod.
  await subscriptionChanged(ctx, customer.id, { before: null, after: subscription.status }, now);
  const start = subscriptionStart(created);
  await putSubscriptionWait(ctx, created, start.workflowId);
  ctx.afterCommit(async () => {
    await ctx.workflows.start(start);
  });
  return { subscription: created, view };
}
