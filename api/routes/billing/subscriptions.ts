// Subscriptions: POST /v1/subscriptions, GET /v1/subscriptions (customerId, status),
// GET /v1/subscriptions/{id}, POST /v1/subscriptions/{id} (update), cancel and resume; see
// docs/reference/subscriptions.md.
import { itemsBySubscription, subscriptionsQuery, type SubscriptionRow } from '../../../db/subscriptions';
import { idPattern } from '../../../domain/ids';
import { cancelSubscription, type CancelInput } from '../../../services/subscriptions/cancel';
import { resumeSubscription } from '../../../services/subscriptions/resume';
import { updateSubscriptionFields, type UpdateInput } from '../../../services/subscriptions/update';
import { showSubscription } from '../../../services/subscriptions/show';
import type { SubscriptionStatus } from '../../../domain/subscription-rules';
import { createSubscription, type SubscriptionInput } from '../../../services/subscriptions/create';
import { transactional } from '../../../services/run';
import { subscriptionView } from '../../../views/subscription';
import { type ListQuery } from '../../platform/pagination';
import { findIn, getRoute, listRoute } from '../../platform/resource-routes';
import { defineRoute } from '../../platform/route';
import { subscriptionCancelSchema, subscriptionCreateSchema, subscriptionListQuerySchema, subscriptionSchema, subscriptionUpdateSchema } from '../../schemas/subscription';

const TAG = 'Subscriptions';
const subscriptionTable = { kind: 'subscription', table: 'subscriptions' } as const;

export const subscriptionRoutes = [
  defineRoute<SubscriptionInput, unknown>({
    method: 'POST',
    path: '/v1/subscriptions',
    operationId: 'createSubscription',
    summary: 'Create a subscription',
    description:
      'Bills its items each period from now, in the customer\'s time (a test clock\'s, if the customer lives on one). With `charge_automatically` (the default) it starts `incomplete` with its first invoice open, charged at once to `cardId` or the customer\'s default card, or paid by the customer at `checkoutUrl`; paid, it is `active`; unpaid after 23 hours, `incomplete_expired`. With `send_invoice` it is `active` at once and each period\'s invoice is emailed to be paid by its due date. Renewals follow at each period\'s end, counted from the start (31 January, then 28 February, then 31 March), or from `billingCycleAnchor` (the account\'s default when none is named), the part period up to it billed first. `couponId` discounts its invoices (see `discount`) and `taxRateIds` taxes them.',
    tag: TAG,
    auth: { permission: 'billing:write' },
    idempotent: true,
    body: subscriptionCreateSchema,
    responses: { 201: { description: 'The new subscription.', schema: subscriptionSchema } },
    // 404 also without a reason: no such customer or card (a price that is not one of yours is items_invalid).
    errors: ['items_invalid', 'billing_date_invalid', 'billing_cycle_anchor_invalid', 'price_unavailable', 'card_not_reusable', 'saved_cards_off', 'mode_mismatch', 'coupon_invalid', 'tax_rate_invalid'],
    async handler(input) {
      return { status: 201, body: (await createSubscription(transactional(input), input.caller, input.body)).view };
    },
  }),
  listRoute<SubscriptionRow, ListQuery & { customerId?: string; status?: SubscriptionStatus }>({
    path: '/v1/subscriptions',
    operationId: 'listSubscriptions',
    summary: 'List subscriptions, newest first',
    tag: TAG,
    auth: { permission: 'billing:read' },
    kind: 'subscription',
    query: subscriptionListQuerySchema,
    item: subscriptionSchema,
    answer: 'A page of subscriptions.',
    rows: ({ db, scope, query }) => subscriptionsQuery(db, scope, query),
    pageView: async (db, rows) => {
      const items = await itemsBySubscription(db, rows.map((r) => r.id));
      return rows.map((row) => subscriptionView(row, items.get(row.id)!));
    },
  }),
  getRoute<SubscriptionRow>({
    path: '/v1/subscriptions/{id}',
    operationId: 'getSubscription',
    summary: 'Get a subscription',
    tag: TAG,
    auth: { permission: 'billing:read' },
    kind: 'subscription',
    table: 'subscriptions',
    item: subscriptionSchema,
    answer: 'The subscription.',
    view: (row, db) => showSubscription(db, row),
  }),
  defineRoute<UpdateInput, unknown, { id: string }>({
    method: 'POST',
    path: '/v1/subscriptions/{id}',
    operationId: 'updateSubscription',
    summary: 'Update a subscription',
    description:
      'Changes only the fields sent. A change of items (`items`, or `priceId`/`quantity` for a one-item subscription) is prorated by the second from `prorationDate` (default now): with `create_prorations` (the default) a credit for the unused time and a charge for the rest of the period go onto the next invoice as proration lines; with `always_invoice` they are invoiced and collected now (`billingReason` `subscription_update`); with `none` the new items bill from the next period. A change of interval starts a new period at once, invoiced now with the unused time credited. With `paymentBehavior` `pending_if_incomplete` a change invoiced now waits in `pendingUpdate` until that invoice is paid. `POST /v1/invoices/preview` with the same body and `prorationDate` shows the invoice to the cent. The other fields: `cardId` (a card of this customer, for the renewals and the next attempts of open invoices), `cancelAtPeriodEnd` or `cancelAt` (setting one withdraws the other; `cancelAt` null withdraws it), `cancellationDetails`, `reference`, `collectionMethod` and `daysUntilDue` (from the next invoice), `trialEnd` (only while trialing: `now` ends the trial at once and bills the first period; a time moves it), `trialEndBehavior` and `pauseCollection` (only while it renews), `couponId` (a coupon whose discount applies from now, on an invoice the update makes too; null removes the discount) and `taxRateIds` (the rates from now; an empty list stops taxing). Sends `customer.subscription.updated`.',
    tag: TAG,
    auth: { permission: 'billing:write' },
    idempotent: true,
    params: { id: idPattern('subscription') },
    body: subscriptionUpdateSchema,
    responses: { 200: { description: 'The subscription, updated.', schema: subscriptionSchema } },
    // 404 also without a reason: no such subscription or card.
    errors: ['billing_date_invalid', 'items_invalid', 'subscription_ended', 'subscription_change_refused', 'card_not_reusable', 'price_unavailable', 'coupon_invalid', 'tax_rate_invalid'],
    async handler(input) {
      const found = await findIn<SubscriptionRow>(input.db, subscriptionTable, input.params.id, input.caller);
      const row = await updateSubscriptionFields(transactional(input), found.id, input.body, input.caller.account.proration);
      return { status: 200, body: await showSubscription(input.db, row) };
    },
  }),
  defineRoute<CancelInput, unknown, { id: string }>({
    method: 'POST',
    path: '/v1/subscriptions/{id}/cancel',
    operationId: 'cancelSubscription',
    summary: 'Cancel a subscription',
    description:
      '`atPeriodEnd` false (the default) ends it now: its open invoices are voided, the customer is emailed and `customer.subscription.deleted` is sent. `atPeriodEnd` true lets the paid period run out (`cancelAtPeriodEnd` true; withdrawn by resume). `feedback` and `comment` go into `cancellationDetails`.',
    tag: TAG,
    auth: { permission: 'billing:write' },
    idempotent: true,
    params: { id: idPattern('subscription') },
    body: subscriptionCancelSchema,
    responses: { 200: { description: 'The subscription, canceled or to be canceled.', schema: subscriptionSchema } },
    errors: ['subscription_ended'],
    async handler(input) {
      const found = await findIn<SubscriptionRow>(input.db, subscriptionTable, input.params.id, input.caller);
      const row = await cancelSubscription(transactional(input), found.id, input.body);
      return { status: 200, body: await showSubscription(input.db, row) };
    },
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'POST',
    path: '/v1/subscriptions/{id}/resume',
    operationId: 'resumeSubscription',
    summary: 'Resume a subscription',
    description:
      'Withdraws a pending cancellation (`cancelAtPeriodEnd` or `cancelAt`), or restarts a paused subscription: with a card on file it is `active` again with a new period from now, billed at once (`customer.subscription.resumed`); with none, 409 `subscription_change_refused`. A subscription with neither is returned as it is.',
    tag: TAG,
    auth: { permission: 'billing:write' },
    idempotent: true,
    params: { id: idPattern('subscription') },
    responses: { 200: { description: 'The subscription.', schema: subscriptionSchema } },
    errors: ['subscription_ended', 'subscription_change_refused'],
    async handler(input) {
      const found = await findIn<SubscriptionRow>(input.db, subscriptionTable, input.params.id, input.caller);
      const row = await resumeSubscription(transactional(input), found.id);
      return { status: 200, body: await showSubscription(input.db, row) };
    },
  }),
];
