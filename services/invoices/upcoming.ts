// The next renewal's invoice, as it would be made, not stored (GET /v1/invoices/upcoming and
// POST /v1/invoices/preview without changes): id `upcoming_<subscription id>`, status `draft`,
// number null, its lines made by the very code a renewal bills with (services/subscriptions/
// bill-period.ts), the amounts carried over that wait for the customer's next invoice after them,
// so it equals the invoice cent for cent (unless another invoice of the customer takes those
// first). A trialing subscription's is the first paid period's, from the trial's end. 404 for a
// subscription that will not renew: ended, paused, or to be canceled at or before its period's
// end. invoice.upcoming carries it three days before each renewal.
import { recordEventsStatement } from '../../db/events';
import { itemsOf, updateSubscription, type PricedItem, type SubscriptionRow } from '../../db/subscriptions';
import type { StepReads } from '../subscriptions/step';
import type { InvoiceRow } from '../../db/invoices';
import { ApiError } from '../../domain/errors';
import { nextSubscriptionStep, subscriptionChangeRefusal } from '../../domain/subscription-rules';
import { billingNowOf } from '../test-clocks/billing-now';
import { invoiceView } from '../../views/invoice';
import type { ServiceContext, TransactionContext } from '../context';
import { nextPeriodOf, renewalLines } from '../subscriptions/bill-period';
import { pendingCarriedLines } from './carry-over';
import { draftRow } from './draft';
import { writeLast } from '../run';

/** The preview's id: the subscription's, so a merchant finds it again (the spec's form). */
export const upcomingInvoiceId = (subscriptionId: string): string => `upcoming_${subscriptionId}`;

/** Whether the subscription will renew (or, trialing, begin its paid periods): not ended, paused, or to be canceled first. */
export function willRenew(subscription: SubscriptionRow): boolean {
  const next = nextSubscriptionStep(subscription);
  return next.kind !== 'ended' && next.kind !== 'idle' && next.kind !== 'cancel' && !subscription.cancel_at_period_end;
}

/** What a caller has read already: the subscription's items, and whether an amount carried over waits (CustomerTime's `carries`). */
export interface RenewalReads {
  items?: PricedItem[];
  carries?: boolean;
}

export async function upcomingInvoice(ctx: Pick<ServiceContext, 'db'>, subscription: SubscriptionRow, known: RenewalReads = {}): Promise<InvoiceRow> {
  if (!willRenew(subscription)) {
    const next = nextSubscriptionStep(subscription);
    throw new ApiError('NOT_FOUND', `The subscription ${subscription.id} will not renew (${next.kind === 'idle' ? 'paused' : next.kind === 'ended' ? subscription.status : 'it is to be canceled'}): it has no upcoming invoice.`);
  }
  return renewalInvoice(ctx, subscription, known);
}

/** The invoice the subscription's next period would make (from its trial's end, for a trialing one). */
export async function renewalInvoice(ctx: Pick<ServiceContext, 'db'>, subscription: SubscriptionRow, known: RenewalReads = {}): Promise<InvoiceRow> {
  const trialing = subscription.status === 'trialing' && subscription.trial_end !== null;
  const start = trialing ? subscription.trial_end! : subscription.current_period_end;
  const items = known.items ?? (await itemsOf(ctx.db, [subscription.id]));
  const carried = known.carries === false ? [] : await pendingCarriedLines(ctx, subscription.customer_id);
  const period = nextPeriodOf(trialing ? { ...subscription, billing_cycle_anchor: start } : subscription, items, start);
  return draftRow({
    id: upcomingInvoiceId(subscription.id),
    account_id: subscription.account_id,
    mode: subscription.mode,
    customer_id: subscription.customer_id,
    subscription_id: subscription.id,
    billing_reason: 'subscription_cycle',
    period_start: period.start,
    period_end: period.end,
    lines: [...renewalLines(subscription, items, period), ...carried],
    collection_method: subscription.collection_method,
    days_until_due: subscription.days_until_due,
    memo: null,
    // When it will be made: the renewal's instant.
    created_at: period.start,
  });
}

export interface InvoicePreviewInput {
  subscriptionId: string;
  items?: unknown[];
  priceId?: string;
  quantity?: number;
  prorationBehavior?: 'create_prorations' | 'always_invoice' | 'none';
  prorationDate?: string;
}

/**
 * POST /v1/invoices/preview: the next renewal's invoice for the subscription as it stands (changes
 * of items come with proration: 501 until then). 409 subscription_ended for an ended one; a
 * `prorationDate` outside the current period or after now, 400 billing_date_invalid.
 */
export async function previewInvoice(ctx: Pick<ServiceContext, 'db' | 'clock'>, subscription: SubscriptionRow, input: InvoicePreviewInput): Promise<InvoiceRow> {
  const refusal = subscriptionChangeRefusal(subscription.id, subscription.status, 'update');
  if (refusal !== null) throw refusal;
  if (input.items !== undefined || input.priceId !== undefined || input.quantity !== undefined) {
    throw new ApiError('NOT_SUPPORTED', 'Previews of item, price and quantity changes come with proration in the next version: preview without changes for the next renewal.');
  }
  if (input.prorationDate !== undefined) {
    const date = new Date(input.prorationDate);
    const now = await billingNowOf(ctx, subscription.customer_id);
    if (date < subscription.current_period_start || date > subscription.current_period_end || date > now) {
      const message = `Must fall inside the current period (${subscription.current_period_start.toISOString()} to ${subscription.current_period_end.toISOString()}) and not after now.`;
      throw new ApiError('billing_date_invalid', `prorationDate: ${message}`, { fields: [{ path: 'prorationDate', message }] });
    }
  }
  return upcomingInvoice(ctx, subscription);
}

/**
 * invoice.upcoming, three days before a renewal (a step of the subscription's workflow): the
 * renewal's invoice as it will be made, once per period.
 */
export async function announceUpcomingInvoice(ctx: TransactionContext, subscription: SubscriptionRow, at: Date, { items, customer }: StepReads): Promise<SubscriptionRow> {
  const noticed = await updateSubscription(ctx.db, subscription.id, { upcoming_notice_for: subscription.current_period_end });
  await writeLast(ctx, recordEventsStatement([{ accountId: noticed.account_id, mode: noticed.mode, type: 'invoice.upcoming', data: invoiceView(await upcomingInvoice(ctx, noticed, { items, carries: customer.carries })), now: at }]));
  return noticed;
}
