// Update a subscription (POST /v1/subscriptions/{id}). Only the fields sent change; the time is the
// customer's.
// - `items`, `priceId`, `quantity` with `prorationBehavior`, `prorationDate`, `paymentBehavior`:
//   a change of items, prorated (services/subscriptions/change.ts), made first, from the items and
//   period as they stand;
// - `cardId`: a card of this customer, charged for the renewals (and, from then on, the invoices
//   still collected: each attempt takes the card on file as it is then);
// - `cancelAtPeriodEnd` and `cancelAt` (the two exclusive: setting one withdraws the other; null
//   withdraws `cancelAt`), `cancellationDetails`, `reference`;
// - `collectionMethod`, `daysUntilDue`: from the next invoice;
// - `trialEnd` (only while trialing): `now` ends the trial at once, in this request (the first
//   period is billed now: services/subscriptions/trial.ts), a time moves its end (its notice is
//   due again); `trialEndBehavior`;
// - `pauseCollection` (services/subscriptions/pause.ts; null ends it).
// A change that moves the next step (a trial's end, `cancelAt`, a change of interval, a change
// waiting for its invoice) reschedules its workflow.
// customer.subscription.updated, always.
import type { CustomerRow } from '../../db/customers';
import { recordEvent } from '../../db/events';
import { lockSubscription, updateSubscription, type SubscriptionRow } from '../../db/subscriptions';
import type { CollectionMethod } from '../../domain/invoices';
import { pauseChanges, type PauseBehavior } from '../../domain/pause-collection';
import { billingDateRefusal, nextSubscriptionStep, sameStep, subscriptionChangeRefusal, type TrialEndBehavior } from '../../domain/subscription-rules';
import type { TransactionContext } from '../context';
import { applyCoupon } from '../coupons/redeem';
import { usableTaxRates } from '../tax-rates/usable';
import { discountFrom } from '../../domain/coupons';
import { couponTerms } from '../../views/coupon';
import { billingNowOf } from '../test-clocks/billing-now';
import { rescheduleSubscription } from './reschedule';
import { showSubscription } from './show';
import { endTrial } from './trial';
import { checkUsableCard } from './usable-card';
import { DEFAULT_DAYS_UNTIL_DUE } from '../invoices/create';
import type { PaymentBehavior } from '../../domain/subscription-changes';
import type { ProrationUnit } from '../../domain/proration';
import { asksItemChange, makeChange, prepareChange, type ChangeInput } from './change';

export interface UpdateInput extends ChangeInput {
  cardId?: string;
  cancelAtPeriodEnd?: boolean;
  cancelAt?: string | null;
  cancellationDetails?: { feedback?: string; comment?: string };
  reference?: string | null;
  collectionMethod?: CollectionMethod;
  daysUntilDue?: number;
  trialEnd?: string;
  trialEndBehavior?: TrialEndBehavior;
  paymentBehavior?: PaymentBehavior;
  pauseCollection?: { behavior: PauseBehavior; resumesAt?: string } | null;
  couponId?: string | null;
  taxRateIds?: string[];
}

/**
 * The discount and tax rates sent, on the row before anything else changes (an invoice the update
 * makes now is discounted and taxed by them): a coupon other than the subscription's own applied
 * from now (counted), null removing the discount; the rates replacing the kept ones (a rate kept
 * already may stay though archived).
 */
async function adjust(ctx: TransactionContext, subscription: SubscriptionRow, input: UpdateInput, now: Date): Promise<SubscriptionRow> {
  const owner = { accountId: subscription.account_id, mode: subscription.mode };
  const changes: Partial<SubscriptionRow> = {};
  if (input.couponId === null) changes.discount = null;
  else if (input.couponId !== undefined && input.couponId !== subscription.discount?.couponId) {
    changes.discount = discountFrom(couponTerms(await applyCoupon(ctx, owner, input.couponId)), now);
  }
  if (input.taxRateIds !== undefined) {
    const kept = new Map(subscription.tax_rates.map((rate) => [rate.id, rate]));
    const fresh = await usableTaxRates(ctx, owner, input.taxRateIds.filter((id) => !kept.has(id)));
    changes.tax_rates = input.taxRateIds.map((id) => kept.get(id) ?? fresh.find((rate) => rate.id === id)!);
  }
  return Object.keys(changes).length === 0 ? subscription : updateSubscription(ctx.db, subscription.id, changes);
}

/** A change of items, prepared from the subscription as locked and made in this transaction. */
async function changeItems(ctx: TransactionContext, subscription: SubscriptionRow, input: UpdateInput, now: Date, unit: ProrationUnit): Promise<SubscriptionRow> {
  if (!asksItemChange(input)) return subscription;
  const change = await prepareChange(ctx, subscription, input, { now, unit });
  // pending_if_incomplete matters for always_invoice and a change of interval only (DESIGN.md's fine
  // print), not for create_prorations' lines invoiced now in a last period.
  const waits = input.prorationBehavior === 'always_invoice' || change.plan.newPeriod !== null;
  return makeChange(ctx, subscription, change, waits ? input.paymentBehavior : 'allow_incomplete');
}

/** `unit`: the account's proration setting (by the second or by the day). */
export async function updateSubscriptionFields(ctx: TransactionContext, subscriptionId: string, input: UpdateInput, unit: ProrationUnit = 'second'): Promise<SubscriptionRow> {
  const subscription = await lockSubscription(ctx.db, subscriptionId);
  const refusal = subscriptionChangeRefusal(subscription.id, subscription.status, input.trialEnd !== undefined ? 'trial_end' : 'update');
  if (refusal !== null) throw refusal;
  const now = await billingNowOf(ctx, subscription.customer_id);
  const changed = await changeItems(ctx, await adjust(ctx, subscription, input, now), input, now, unit);
  const changes: Partial<SubscriptionRow> = {};
  if (input.cardId !== undefined) {
    const customer = (await ctx.db('customers').where({ id: subscription.customer_id }).first('account_id', 'mode', 'email')) as Pick<CustomerRow, 'account_id' | 'mode' | 'email'>;
    await checkUsableCard(ctx, customer, input.cardId);
    changes.card_id = input.cardId;
    changes.card_missing_since = null;
  }
  if (input.cancelAt !== undefined) {
    const cancelAt = input.cancelAt === null ? null : new Date(input.cancelAt);
    const dateRefusal = cancelAt === null ? null : billingDateRefusal('cancelAt', cancelAt, now);
    if (dateRefusal !== null) throw dateRefusal;
    Object.assign(changes, { cancel_at: cancelAt }, cancelAt === null ? {} : { cancel_at_period_end: false });
  }
  if (input.cancelAtPeriodEnd !== undefined) Object.assign(changes, { cancel_at_period_end: input.cancelAtPeriodEnd, canceled_at: input.cancelAtPeriodEnd ? now : null }, input.cancelAtPeriodEnd ? { cancel_at: null } : {});
  if (input.cancellationDetails !== undefined) {
    const { feedback, comment } = input.cancellationDetails;
    changes.cancellation_details = { ...subscription.cancellation_details, feedback: feedback ?? subscription.cancellation_details.feedback, comment: comment ?? subscription.cancellation_details.comment };
  }
  if ('cancel_at' in changes || 'cancel_at_period_end' in changes) {
    // An end asked for, or withdrawn: the reason says so.
    const merged = { ...subscription, ...changes };
    const ending = merged.cancel_at !== null || merged.cancel_at_period_end;
    changes.cancellation_details = { ...(changes.cancellation_details ?? subscription.cancellation_details), reason: ending ? 'cancellation_requested' : null };
  }
  if (input.reference !== undefined) changes.reference = input.reference;
  if (input.collectionMethod !== undefined) changes.collection_method = input.collectionMethod;
  if (input.daysUntilDue !== undefined) changes.days_until_due = input.daysUntilDue;
  // Sent to the customer from now on: due in the default 30 days unless told.
  else if (input.collectionMethod === 'send_invoice' && subscription.days_until_due === null) changes.days_until_due = DEFAULT_DAYS_UNTIL_DUE;
  if (input.trialEndBehavior !== undefined) changes.trial_end_behavior = input.trialEndBehavior;
  if (input.pauseCollection !== undefined) Object.assign(changes, pauseChanges(subscription.id, subscription.status, input.pauseCollection, now));
  const trialEndsNow = input.trialEnd === 'now';
  if (input.trialEnd !== undefined && !trialEndsNow) {
    const trialEnd = new Date(input.trialEnd);
    const dateRefusal = billingDateRefusal('trialEnd', trialEnd, now);
    if (dateRefusal !== null) throw dateRefusal;
    // The paid periods are counted from the trial's end.
    Object.assign(changes, { trial_end: trialEnd, current_period_end: trialEnd, billing_cycle_anchor: trialEnd });
  }
  let updated = Object.keys(changes).length === 0 ? changed : await updateSubscription(ctx.db, subscription.id, changes);
  if (trialEndsNow) updated = await endTrial(ctx, updated, now);
  if (!sameStep(nextSubscriptionStep(subscription), nextSubscriptionStep(updated))) await rescheduleSubscription(ctx, updated);
  // A trial ended now has told of the change already (customer.subscription.updated, or .deleted).
  if (!trialEndsNow) await recordEvent(ctx.db, { accountId: updated.account_id, mode: updated.mode, type: 'customer.subscription.updated', data: await showSubscription(ctx.db, updated), now });
  return updated;
}
