// A change of a subscription's items (POST /v1/subscriptions/{id} with `items`, `priceId` or
// `quantity`; DESIGN.md "Proration" and "Subscription changes"): prepared once, from the
// subscription locked by the update (or as read, by a preview), by the pure rules of
// domain/subscription-changes.ts; then made (`makeChange`) or previewed
// (services/invoices/upcoming.ts previewInvoice), from the same plan, so a preview with the same
// `prorationDate` is the invoice to the cent.
// - `create_prorations`: the proration lines wait for the next period's invoice (db/pending-prorations.ts);
// - `always_invoice`: they are invoiced now (billingReason `subscription_update`), collected as any invoice;
// - `none`: the new items bill from the next period;
// - a change of interval starts a new period at the proration date, invoiced now.
// With `pending_if_incomplete`, a change that makes an invoice now which is not paid at once waits
// in `pendingUpdate` (the items as they were) until that invoice is paid (pending-update.ts); the
// subscription's workflow drops it, voiding the invoice, at its `expiresAt`.
import { newId } from '../../crypto/ids';
import { insertPendingProrations } from '../../db/pending-prorations';
import { findPricedRows, type PricedRow } from '../../db/prices';
import { itemsBySubscription, lockSubscription, replaceItems, updateSubscription, type PricedItem, type SubscriptionItemRow, type SubscriptionRow } from '../../db/subscriptions';
import { ApiError } from '../../domain/errors';
import type { ProratedItem, ProrationUnit } from '../../domain/proration';
import {
  PENDING_UPDATE_MS,
  planChange,
  prorationDateRefusal,
  sameRecurrence,
  wantedItems,
  type ChangePlan,
  type ItemChange,
  type PaymentBehavior,
  type PendingUpdate,
  type ProrationBehavior,
} from '../../domain/subscription-changes';
import type { ServiceContext, TransactionContext } from '../context';
import { priceUnavailable } from '../prices/usable';
import { checkMetersFree } from './meters-billed';
import { batchedRead } from '../owned';
import { billedItems, billPeriod, recurrenceOf } from './bill-period';
import { subscriptionChanged } from '../entitlements/refresh-summary';

export interface ChangeInput {
  items?: ItemChange[];
  priceId?: string;
  quantity?: number;
  prorationBehavior?: ProrationBehavior;
  prorationDate?: string;
}

/** The body asks for a change of items. */
export function asksItemChange(input: ChangeInput): boolean {
  return input.items !== undefined || input.priceId !== undefined || input.quantity !== undefined;
}

export interface PreparedChange {
  now: Date;
  before: PricedItem[];
  /** The items after the change, the new ones with ids of their own (kept only when the change is made). */
  after: PricedItem[];
  plan: ChangePlan;
}

// A preview is a read: under load its reads are batched with the other previews' (services/owned.ts).
const itemsRead = (db: ServiceContext['db']) =>
  batchedRead(db, 'subscription items', async (reader, ids) => {
    const bySubscription = await itemsBySubscription(reader, ids);
    return ids.map((id) => bySubscription.get(id)!);
  });
const priceRead = (db: ServiceContext['db']) => batchedRead(db, 'priced rows', findPricedRows);

/** What a change reads: the subscription's items, and the prices the body names (each a statement, at once). */
export interface ChangeReads {
  before: PricedItem[];
  prices: Map<string, PricedRow | undefined>;
}

export async function readChange(db: ServiceContext['db'], subscription: SubscriptionRow, input: ChangeInput): Promise<ChangeReads> {
  const named = [...new Set([input.priceId, ...(input.items ?? []).map((item) => item.priceId)].filter((id): id is string => id !== undefined))];
  const [before, prices] = await Promise.all([itemsRead(db)(subscription.id), Promise.all(named.map((id) => priceRead(db)(id)))]);
  return { before, prices: new Map(named.map((id, i) => [id, prices[i]])) };
}

// Metered items bill their usage in arrears: nothing of theirs is prorated.
const prorated = (items: readonly PricedItem[]): ProratedItem[] => billedItems(items).flatMap((billed, i) => (billed.terms.usageType === 'metered' ? [] : [{ ...billed, itemId: items[i]!.id }]));

/**
 * The change `input` asks of the subscription at `now` (the customer's), prorated in the
 * account's `unit`: its items after and what it bills. 400 items_invalid (unknown items, a price not of this account, prices on different
 * intervals, none left), billing_date_invalid (a `prorationDate` outside the current period or
 * after now); 409 price_unavailable for a new price archived or of the other mode, and
 * subscription_change_refused while the first invoice is unpaid (nothing to prorate against yet).
 */
export async function prepareChange(
  ctx: Pick<ServiceContext, 'db'>,
  subscription: SubscriptionRow,
  input: ChangeInput,
  { now, unit }: { now: Date; unit: ProrationUnit },
  given?: ChangeReads,
): Promise<PreparedChange> {
  if (subscription.status === 'incomplete') {
    throw new ApiError('subscription_change_refused', `The subscription ${subscription.id} is incomplete: its items change once its first invoice is paid.`);
  }
  const period = { start: subscription.current_period_start, end: subscription.current_period_end };
  // Now by default, kept inside the period (a renewal due this instant may not have been taken yet).
  const at = input.prorationDate === undefined ? new Date(Math.min(Math.max(now.getTime(), period.start.getTime()), period.end.getTime())) : new Date(input.prorationDate);
  const dateRefusal = input.prorationDate === undefined ? null : prorationDateRefusal(at, period, now);
  if (dateRefusal !== null) throw dateRefusal;
  const { before, prices } = given ?? (await readChange(ctx.db, subscription, input));
  const wanted = wantedItems(before.map((item) => ({ id: item.id, priceId: item.price_id, quantity: item.quantity })), input);
  const after: PricedItem[] = [];
  for (const [i, item] of wanted.entries()) {
    const kept = before.find((b) => b.id === item.id);
    const price = kept?.price_id === item.priceId ? kept.price : prices.get(item.priceId);
    const path = input.items === undefined ? 'priceId' : `items[${i}].priceId`;
    // As on create: another account's price is answered as none.
    if (price === undefined || price.account_id !== subscription.account_id) throw new ApiError('items_invalid', `No price of yours with id ${item.priceId}.`, { fields: [{ path, message: 'No such price.' }] });
    if (price !== kept?.price) {
      const refusal = priceUnavailable(price, subscription.mode);
      if (refusal !== null) throw refusal;
    }
    after.push({ id: item.id ?? newId('subscriptionItem', now.getTime()), subscription_id: subscription.id, price_id: price.id, quantity: item.quantity, created_at: kept?.created_at ?? now, price });
  }
  const added = after.filter((item) => !before.some((b) => b.price_id === item.price_id)).map((item) => item.price);
  await checkMetersFree(ctx, { accountId: subscription.account_id, mode: subscription.mode, customerId: subscription.customer_id, id: subscription.id }, added, input.items === undefined ? 'priceId' : 'items');
  const newRecurrence = recurrenceOf(after);
  if (after.some((item) => !sameRecurrence(recurrenceOf([item]), newRecurrence))) {
    throw new ApiError('items_invalid', 'Every item\'s price bills on the same interval.', { fields: [{ path: 'items', message: 'Prices on different intervals.' }] });
  }
  const plan = planChange({
    before: prorated(before),
    after: prorated(after),
    behavior: input.prorationBehavior ?? 'create_prorations',
    at,
    status: subscription.status,
    anchor: subscription.billing_cycle_anchor,
    period,
    recurrence: recurrenceOf(before),
    newRecurrence,
    cancelAt: subscription.cancel_at,
    unit,
    lastPeriod: subscription.cancel_at_period_end || (subscription.cancel_at !== null && subscription.cancel_at.getTime() <= period.end.getTime()),
  });
  return { now, before, after, plan };
}

const itemRows = (items: readonly PricedItem[]): SubscriptionItemRow[] => items.map(({ price: _price, ...row }) => row);

/** The row's changes a change of interval makes: the new period, anchored at its start (its notice not yet sent). */
export function newPeriodChanges(newPeriod: { start: Date; end: Date } | null): Partial<SubscriptionRow> {
  return newPeriod === null ? {} : { billing_cycle_anchor: newPeriod.start, current_period_start: newPeriod.start, current_period_end: newPeriod.end, upcoming_notice_for: null };
}

/**
 * The prepared change made, in the update's transaction (the subscription locked): the items kept,
 * the proration lines kept for the next period, and the invoice made now. With
 * `pending_if_incomplete` an invoice made now and not paid at once leaves the items as they were
 * and the change in `pendingUpdate`; 409 subscription_change_refused while one waits already.
 */
export async function makeChange(ctx: TransactionContext, subscription: SubscriptionRow, change: PreparedChange, paymentBehavior: PaymentBehavior = 'allow_incomplete'): Promise<SubscriptionRow> {
  if (subscription.pending_update !== null) {
    throw new ApiError('subscription_change_refused', `A change of the subscription ${subscription.id} waits for its invoice ${subscription.pending_update.invoiceId} to be paid (until ${subscription.pending_update.expiresAt}).`);
  }
  const { plan, after, now } = change;
  if (plan.invoice !== null && paymentBehavior === 'pending_if_incomplete') {
    const invoice = await billPeriod(ctx, subscription, plan.invoice.lines, plan.invoice.period, 'subscription_update', now);
    if (invoice.status !== 'paid') {
      const pending: PendingUpdate = {
        items: after.map((item) => ({ ...(change.before.some((b) => b.id === item.id) ? { id: item.id } : {}), priceId: item.price_id, quantity: item.quantity })),
        expiresAt: new Date(now.getTime() + PENDING_UPDATE_MS).toISOString(),
        invoiceId: invoice.id,
        newPeriod: plan.newPeriod === null ? null : { start: plan.newPeriod.start.toISOString(), end: plan.newPeriod.end.toISOString() },
      };
      return updateSubscription(ctx.db, subscription.id, { pending_update: pending, latest_invoice_id: invoice.id });
    }
    // Paid at once (nothing to collect): the change applies now.
    await replaceItems(ctx.db, subscription.id, itemRows(after));
    await subscriptionChanged(ctx, subscription.customer_id, { before: subscription.status, after: subscription.status, itemsChanged: true }, now);
    return updateSubscription(ctx.db, subscription.id, { ...newPeriodChanges(plan.newPeriod), latest_invoice_id: invoice.id });
  }
  await replaceItems(ctx.db, subscription.id, itemRows(after));
  await subscriptionChanged(ctx, subscription.customer_id, { before: subscription.status, after: subscription.status, itemsChanged: true }, now);
  await insertPendingProrations(ctx.db, subscription.id, plan.pending, now);
  const invoiceId = plan.invoice === null ? null : newId('invoice', now.getTime());
  const changes: Partial<SubscriptionRow> = {
    ...newPeriodChanges(plan.newPeriod),
    ...(plan.pending.length > 0 ? { prorations_pending: true } : {}),
    ...(invoiceId === null ? {} : { latest_invoice_id: invoiceId }),
  };
  const changed = Object.keys(changes).length === 0 ? subscription : await updateSubscription(ctx.db, subscription.id, changes);
  if (plan.invoice === null) return changed;
  // The invoice's own payment (one owing nothing is paid at once) moves the subscription from there.
  await billPeriod(ctx, changed, plan.invoice.lines, plan.invoice.period, 'subscription_update', now, undefined, { id: invoiceId! });
  return lockSubscription(ctx.db, subscription.id);
}
