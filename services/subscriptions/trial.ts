// A subscription's trial (steps of its workflow, in the customer's time):
// - three days before it ends (at once for a shorter one), customer.subscription.trial_will_end and
//   the trial_will_end email with what the first period will cost, and invoice.upcoming with that
//   invoice, once per trial end (one moved later is noticed again);
// - at its end (where a subscription canceled at period end ends instead), the first paid period
//   begins, anchored there: with a card on file (the
//   subscription's, else the customer's default), or collected by sending, it is `active` and its
//   invoice collected as any renewal's. With no card, `trialEndBehavior` decides: `create_invoice`
//   sends the invoice to the customer to pay on its page by the subscription's daysUntilDue
//   (paying there keeps the card for the renewals); `pause` pauses it (no invoice; resumed by the
//   merchant once there is a card); `cancel` ends it.
import { recordEvent } from '../../db/events';
import { itemsOf, updateSubscription, type SubscriptionRow } from '../../db/subscriptions';
import { centsFromDb } from '../../domain/money';
import { DEFAULT_DAYS_UNTIL_DUE } from '../invoices/create';
import { invoiceView } from '../../views/invoice';
import { subscriptionView } from '../../views/subscription';
import { renewalInvoice, willRenew } from '../invoices/upcoming';
import type { TransactionContext } from '../context';
import { customerRecipient, keepEmail } from '../emails/keep';
import { invoiceCard } from '../invoices/collect';
import { nextPeriodOf, startPeriod } from './bill-period';
import { endSubscription } from './end';
import { subscriptionChanged } from '../entitlements/refresh-summary';

export async function noticeTrialEnd(ctx: TransactionContext, subscription: SubscriptionRow, at: Date): Promise<SubscriptionRow> {
  const trialEnd = subscription.trial_end!;
  const noticed = await updateSubscription(ctx.db, subscription.id, { trial_notice_for: trialEnd });
  const items = await itemsOf(ctx.db, [subscription.id]);
  const upcoming = await renewalInvoice(ctx, noticed);
  await recordEvent(ctx.db, { accountId: noticed.account_id, mode: noticed.mode, type: 'customer.subscription.trial_will_end', data: subscriptionView(noticed, items), now: at });
  // The first paid period's invoice, as invoice.upcoming announces each renewal's (when there will be one).
  if (willRenew(noticed)) await recordEvent(ctx.db, { accountId: noticed.account_id, mode: noticed.mode, type: 'invoice.upcoming', data: invoiceView(upcoming), now: at });
  await keepEmail(ctx, {
    accountId: noticed.account_id,
    mode: noticed.mode,
    ...(await customerRecipient(ctx, noticed.account_id, noticed.customer_id)),
    content: { kind: 'trial_will_end', product: items[0]?.price.product_name ?? '', trialEnd, amountCents: centsFromDb(upcoming.amount_due_cents) },
    objectId: noticed.id,
    at,
  });
  return noticed;
}

export async function endTrial(ctx: TransactionContext, subscription: SubscriptionRow, at: Date): Promise<SubscriptionRow> {
  // Canceled at the period's end while trialing: the trial is its last period.
  if (subscription.cancel_at_period_end) return endSubscription(ctx, subscription, at, 'requested_by_merchant');
  const items = await itemsOf(ctx.db, [subscription.id]);
  // The paid periods are counted from the trial's end (as it ended: early, by `trialEnd` now).
  const ended = { trial_end: at, billing_cycle_anchor: at };
  const period = nextPeriodOf({ ...subscription, ...ended }, items, at);
  const charged = subscription.collection_method === 'charge_automatically';
  const noCard = charged && (await invoiceCard(ctx.db, { customer_id: subscription.customer_id, subscription_id: subscription.id })) === null;
  if (!noCard) return startPeriod(ctx, subscription, items, period, at, { changes: { ...ended, status: 'active' } });
  switch (subscription.trial_end_behavior) {
    case 'cancel':
      return endSubscription(ctx, await updateSubscription(ctx.db, subscription.id, { ...ended, card_missing_since: at }), at, 'trial_ended_without_card');
    case 'pause': {
      const paused = await updateSubscription(ctx.db, subscription.id, { ...ended, status: 'paused', paused_at: at, card_missing_since: at });
      const view = subscriptionView(paused, items);
      await recordEvent(ctx.db, { accountId: paused.account_id, mode: paused.mode, type: 'customer.subscription.updated', data: view, now: at });
      await recordEvent(ctx.db, { accountId: paused.account_id, mode: paused.mode, type: 'customer.subscription.paused', data: view, now: at });
      await subscriptionChanged(ctx, paused.customer_id, { before: subscription.status, after: paused.status }, at);
      return paused;
    }
    case 'create_invoice':
      return startPeriod(ctx, subscription, items, period, at, {
        changes: { ...ended, status: 'active', card_missing_since: at },
        collection: { method: 'send_invoice', daysUntilDue: subscription.days_until_due ?? DEFAULT_DAYS_UNTIL_DUE },
      });
  }
}
