// Create a subscription (POST /v1/subscriptions): its customer (found or made), its items (active
// prices of this mode, each once, on one interval), its first period from now in the customer's
// time, and its first invoice, finalised: `send_invoice` subscriptions are `active` at once, their
// invoice to be paid by its due date; `charge_automatically` ones are `incomplete` until the first
// invoice is paid, charged at once by its collection workflow to the card (`cardId`, else the
// customer's default), or, with none, paid by the customer at `checkoutUrl` (the invoice's page).
// Its workflow, which expires it unpaid after 23 hours and renews it at each period's end, starts
// after the commit; on a test clock its first wait is written here, with it.
import { newId } from '../../crypto/ids';
import type { CustomerRow } from '../../db/customers';
import { findPricedRow } from '../../db/prices';
import { insertSubscription, itemsOf, updateSubscription, type SubscriptionItemRow, type SubscriptionRow } from '../../db/subscriptions';
import { lockTestClock, putClockWait } from '../../db/test-clocks';
import { recordEvent } from '../../db/events';
import { periodBoundary } from '../../domain/billing-periods';
import { ApiError } from '../../domain/errors';
import type { CollectionMethod } from '../../domain/invoices';
import { subscriptionStart } from '../../orchestration/starts';
import { subscriptionView } from '../../views/subscription';
import type { AccountScope, TransactionContext } from '../context';
import { createCustomer } from '../customers/create';
import { DEFAULT_DAYS_UNTIL_DUE } from '../invoices/create';
import { findOwned } from '../owned';
import { priceUnavailable } from '../prices/usable';
import { billingNow } from '../test-clocks/billing-now';
import { billPeriod } from './bill-period';
import type { SubscriptionLifeInput } from '../../workflows/subscription';
import { invoiceCard } from '../invoices/collect';
import { findSavedCard } from '../../db/saved-cards';

/** The card asked for, if it is this customer's and can be charged (card_not_reusable). */
async function usableCardOf(ctx: TransactionContext, customer: CustomerRow, cardId: string): Promise<void> {
  const card = await findSavedCard(ctx.db, cardId);
  if (card === undefined || card.account_id !== customer.account_id || card.mode !== customer.mode) throw new ApiError('NOT_FOUND', `No card with id ${cardId}.`);
  if (card.customer_email.toLowerCase() !== customer.email.toLowerCase()) throw new ApiError('card_not_reusable', `The card ${cardId} is not this customer's.`);
  if (card.retired_at !== null || card.processor_token === null) throw new ApiError('card_not_reusable', `The card ${cardId} was deleted: it cannot be charged.`);
}

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
}

const itemsInvalid = (message: string) => new ApiError('items_invalid', message, { fields: [{ path: 'items', message }] });

export async function createSubscription(ctx: TransactionContext, scope: AccountScope, input: SubscriptionInput): Promise<{ subscription: SubscriptionRow; view: ReturnType<typeof subscriptionView> }> {
  const customer =
    input.customer !== undefined ? (await createCustomer(ctx, scope, input.customer)).customer : await findOwned<CustomerRow>(ctx.db, 'customers', input.customerId!, scope, 'customer');
  const asked = input.items ?? [{ priceId: input.priceId!, quantity: input.quantity }];
  if (new Set(asked.map((i) => i.priceId)).size !== asked.length) throw itemsInvalid('Each price once.');
  const prices = [];
  for (const item of asked) {
    const price = await findPricedRow(ctx.db, item.priceId);
    if (price === undefined || price.account_id !== scope.account.id) throw new ApiError('NOT_FOUND', `No price with id ${item.priceId}.`);
    const refusal = priceUnavailable(price, scope.mode);
    if (refusal !== null) throw refusal;
    prices.push(price);
  }
  const recurrence = { interval: prices[0]!.interval, intervalCount: prices[0]!.interval_count };
  if (prices.some((p) => p.interval !== recurrence.interval || p.interval_count !== recurrence.intervalCount)) throw itemsInvalid('Every item\'s price bills on the same interval.');

  const collectionMethod = input.collectionMethod ?? 'charge_automatically';
  if (input.cardId !== undefined) await usableCardOf(ctx, customer, input.cardId);
  const now = await billingNow(ctx, customer);
  const subscription: SubscriptionRow = {
    id: newId('subscription', now.getTime()),
    account_id: scope.account.id,
    mode: scope.mode,
    customer_id: customer.id,
    // Charged to the card: incomplete until the first invoice is paid.
    status: collectionMethod === 'send_invoice' ? 'active' : 'incomplete',
    billing_cycle_anchor: now,
    current_period_start: now,
    current_period_end: periodBoundary(now, recurrence, 1),
    cancel_at_period_end: false,
    cancel_at: null,
    canceled_at: null,
    ended_at: null,
    cancel_reason: null,
    cancellation_details: { reason: null, feedback: null, comment: null },
    trial_start: null,
    trial_end: null,
    trial_end_behavior: 'create_invoice',
    collection_method: collectionMethod,
    days_until_due: input.daysUntilDue ?? DEFAULT_DAYS_UNTIL_DUE,
    card_id: input.cardId ?? null,
    card_missing_since: null,
    latest_invoice_id: null,
    checkout_id: null,
    checkout_url: null,
    reference: input.reference ?? null,
    success_url: null,
    cancel_url: null,
    test_clock_id: customer.test_clock_id,
    created_at: now,
  };
  const items: SubscriptionItemRow[] = asked.map((item) => ({ id: newId('subscriptionItem', now.getTime()), subscription_id: subscription.id, price_id: item.priceId, quantity: item.quantity ?? 1, created_at: now }));
  await insertSubscription(ctx.db, subscription, items);
  const priced = await itemsOf(ctx.db, [subscription.id]);
  const invoice = await billPeriod(ctx, subscription, priced, { start: subscription.current_period_start, end: subscription.current_period_end }, 'subscription_create', now);
  // Nothing to charge the first invoice to: the customer pays it on its page, agreeing to keep the card.
  const awaitsPage = invoice.status === 'open' && collectionMethod === 'charge_automatically' && (await invoiceCard(ctx.db, invoice)) === null;
  const created = await updateSubscription(ctx.db, subscription.id, { latest_invoice_id: invoice.id, ...(awaitsPage ? { checkout_url: invoice.hosted_url } : {}) });
  const view = subscriptionView(created, priced);
  await recordEvent(ctx.db, { accountId: scope.account.id, mode: scope.mode, type: 'customer.subscription.created', data: view, now });
  const start = subscriptionStart(created);
  if (created.test_clock_id !== null) {
    await lockTestClock(ctx.db, created.test_clock_id);
    const [{ incompleteUntil, periodEnd }] = start.args as [SubscriptionLifeInput];
    await putClockWait(ctx.db, { workflowId: start.workflowId, clockId: created.test_clock_id, dueAt: new Date(incompleteUntil ?? periodEnd) });
  }
  ctx.afterCommit(async () => {
    await ctx.workflows.start(start);
  });
  return { subscription: created, view };
}
