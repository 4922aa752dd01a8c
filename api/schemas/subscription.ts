// Subscriptions: the create body (the fields built so far), the list's query and the object.
import { idPattern } from '../../domain/ids';
import { COLLECTION_METHODS } from '../../domain/invoices';
import { PAUSE_BEHAVIORS } from '../../domain/pause-collection';
import { SUBSCRIPTION_STATUSES, TRIAL_END_BEHAVIORS } from '../../domain/subscription-rules';
import { PAYMENT_BEHAVIORS, PRORATION_BEHAVIORS } from '../../domain/subscription-changes';
import { listQueryProperties } from '../platform/pagination';
import { customerCreateSchema } from './customer';
import { countSchema, modeSchema, named, nullable, object, safeIntegerSchema, timestampSchema, type JsonSchema } from './json-schema';

const quantity = { type: 'integer', minimum: 1, maximum: 10000, default: 1 };

/** What a change of items sends, on update and on POST /v1/invoices/preview alike. */
export const itemChangeFields: Record<string, JsonSchema> = {
  items: {
    type: 'array',
    minItems: 1,
    maxItems: 10,
    'x-reason': 'items_invalid',
    description: 'An existing item by `id` with a new `priceId`, a new `quantity`, or `deleted` true; a new item by `priceId` (and `quantity`, default 1). At least one item left, up to 10, every price once and on one interval.',
    items: object({ id: { type: 'string', pattern: idPattern('subscriptionItem') }, priceId: { type: 'string', pattern: idPattern('price') }, quantity: { type: 'integer', minimum: 1, maximum: 10000 }, deleted: { type: 'boolean' } }),
  },
  priceId: { type: 'string', pattern: idPattern('price'), description: 'The new price of a one-item subscription (exclusive with `items`).' },
  quantity: { type: 'integer', minimum: 1, maximum: 10000, description: 'The new quantity of a one-item subscription (exclusive with `items`).' },
  prorationBehavior: {
    type: 'string',
    enum: [...PRORATION_BEHAVIORS],
    default: 'create_prorations',
    description: '`create_prorations`: a credit for the unused time and a charge for the rest of the period, as proration lines on the next invoice; `always_invoice`: those lines invoiced and collected now; `none`: the new items bill from the next period. A change of interval starts a new period at once, invoiced now with the unused time credited (unless `none`).',
  },
  prorationDate: { type: 'string', format: 'date-time', description: 'When the change is prorated from: inside the current period and not after now (default now). Send the same to the preview and to the update.' },
};

/** `priceId` and `quantity` (a one-item subscription's) are exclusive with `items`. */
export const ITEMS_EXCLUSIVE = { priceId: { properties: { items: false } }, quantity: { properties: { items: false } } };

// Ids inside a body: an unknown one answers the spec's reason (409), so any string is taken.
const couponId = { type: 'string', minLength: 1, maxLength: 100, description: 'A valid coupon of yours in this mode (else 409 `coupon_invalid`): its discount applies from now (see `discount`).' };
const taxRateIds = {
  type: 'array',
  maxItems: 5,
  uniqueItems: true,
  items: { type: 'string', minLength: 1, maxLength: 100 },
  description: 'Up to 5 active tax rates of yours in this mode (else 409 `tax_rate_invalid`), each once: every invoice is taxed by them.',
};
const trialEndBehavior = {
  type: 'string',
  enum: [...TRIAL_END_BEHAVIORS],
  description: 'What the trial\'s end does when there is no card on file: `create_invoice` (the default) sends the first invoice to the customer to pay on its page, `pause` pauses the subscription, `cancel` ends it.',
};

export const subscriptionCreateSchema = object(
  {
    customerId: { type: 'string', pattern: idPattern('customer') },
    customer: customerCreateSchema,
    priceId: { type: 'string', pattern: idPattern('price') },
    quantity,
    items: { type: 'array', minItems: 1, maxItems: 10, items: object({ priceId: { type: 'string', pattern: idPattern('price') }, quantity }, ['priceId']), 'x-reason': 'items_invalid' },
    collectionMethod: {
      type: 'string',
      enum: [...COLLECTION_METHODS],
      default: 'charge_automatically',
      description: '`charge_automatically`: each invoice is charged to the card on file, declines retried on the dunning ladder. `send_invoice`: each period\'s invoice is emailed to be paid by its due date.',
    },
    cardId: { type: 'string', pattern: idPattern('savedCard'), description: 'A card of this customer: the first invoice and the renewals are charged to it (else the customer\'s default card; else the customer pays at `checkoutUrl`).' },
    daysUntilDue: { type: 'integer', minimum: 0, maximum: 365, description: 'For `send_invoice`: each invoice is due this many days after it is finalised (default 30).' },
    reference: { type: 'string', maxLength: 120 },
    successUrl: { type: 'string', maxLength: 2000, description: 'Where the hosted page sends the customer after paying the first invoice at `checkoutUrl`.' },
    cancelUrl: { type: 'string', maxLength: 2000, description: 'Where the hosted page sends a customer who leaves without paying.' },
    trialDays: { type: 'integer', minimum: 1, maximum: 730, description: 'A trial of this many days (of 24 hours) from now: `trialing`, the first invoice for nothing.' },
    trialEnd: { type: 'string', format: 'date-time', description: 'A trial ending at this time (after now, within two years).' },
    trialEndBehavior,
    cancelAt: { type: 'string', format: 'date-time', description: 'Ends the subscription at this time (after now, within two years); the last period is billed only up to it, prorated by the second.' },
    addInvoiceItems: {
      type: 'array',
      maxItems: 10,
      description: 'One-off lines on the first invoice (a negative amount is a credit).',
      items: object(
        {
          description: { type: 'string', minLength: 1, maxLength: 200 },
          unitAmountCents: { type: 'integer', minimum: -100000000, maximum: 100000000 },
          quantity,
          discountable: { type: 'boolean', default: true },
        },
        ['description', 'unitAmountCents'],
      ),
    },
    couponId,
    taxRateIds,
    billingCycleAnchor: {
      type: 'string',
      description:
        '`now` (periods counted from the start, or from a trial\'s end), `first_of_month` (the next midnight on the 1st in Sri Lanka; monthly and yearly prices) or a time after now at most one period ahead; else, or other than `now` with a trial, 400 `billing_cycle_anchor_invalid`. The part period up to it is invoiced now, prorated per the account\'s `proration`; worth less than 1000 cents it goes onto the first renewal invoice. Default: the account\'s `billingCycleAnchor` (`now` with a trial).',
    },
  },
  [],
  {
    allOf: [
      { dependentSchemas: { customerId: { properties: { customer: false } } }, if: { required: ['customer'] }, else: { required: ['customerId'] } },
      { dependentSchemas: { priceId: { properties: { items: false } }, quantity: { properties: { items: false } } }, if: { required: ['items'] }, else: { required: ['priceId'] } },
      { dependentSchemas: { trialDays: { properties: { trialEnd: false } } } },
    ],
  },
);

const feedback = { type: 'string', enum: ['customer_service', 'low_quality', 'missing_features', 'other', 'switched_service', 'too_complex', 'too_expensive', 'unused'] };

export const subscriptionUpdateSchema = object(
  {
    cardId: { type: 'string', pattern: idPattern('savedCard'), description: 'A card of this customer: the renewals are charged to it.' },
    cancelAtPeriodEnd: { type: 'boolean', description: 'True: ends when the paid period runs out (withdraws a `cancelAt`); false withdraws that.' },
    cancelAt: { ...nullable({ type: 'string', format: 'date-time' }), description: 'Ends the subscription at this time (after now, within two years; withdraws `cancelAtPeriodEnd`); null withdraws it.' },
    cancellationDetails: object({ feedback, comment: { type: 'string', maxLength: 500 } }),
    reference: nullable({ type: 'string', maxLength: 120 }),
    collectionMethod: { type: 'string', enum: [...COLLECTION_METHODS], description: 'Applies from the next invoice.' },
    daysUntilDue: { type: 'integer', minimum: 0, maximum: 365 },
    trialEnd: {
      anyOf: [{ const: 'now' }, { type: 'string', format: 'date-time' }],
      description: 'Only while trialing (else 409 `subscription_change_refused`): `now` ends the trial at once (the first period is billed now), a time (after now, within two years) moves its end.',
    },
    trialEndBehavior,
    ...itemChangeFields,
    paymentBehavior: {
      type: 'string',
      enum: [...PAYMENT_BEHAVIORS],
      default: 'allow_incomplete',
      description: '`pending_if_incomplete`: a change that makes an invoice now (`always_invoice`, or a change of interval) and is not paid at once waits in `pendingUpdate`, the items as they were, until that invoice is paid; unpaid at its `expiresAt` (23 hours on) it is dropped and the invoice voided. While one waits, another change of items answers 409 `subscription_change_refused`.',
    },
    pauseCollection: {
      ...nullable(object({ behavior: { type: 'string', enum: [...PAUSE_BEHAVIORS] }, resumesAt: { type: 'string', format: 'date-time' } }, ['behavior'])),
      description: 'Only while the subscription renews (else 409 `subscription_change_refused`): invoices made meanwhile are kept as drafts, marked uncollectible or voided, never collected; collection resumes by itself at `resumesAt` (after now, within two years), or when set to null.',
    },
    couponId: { ...nullable(couponId), description: 'A coupon (as on create) replacing the discount, from now; null removes the discount. The subscription\'s own coupon again changes nothing.' },
    taxRateIds: { ...taxRateIds, description: 'Replaces the tax rates from the next invoice (as on create); an empty list stops taxing. A rate the subscription has already may be kept though archived.' },
  },
  [],
  {
    examples: [{ cancelAt: '2027-06-30T18:30:00.000Z', reference: 'order-1042' }, { priceId: 'price_0mw8a3k2x9q1c7v5b4n6m2z8', prorationBehavior: 'always_invoice' }],
    dependentSchemas: { cancelAt: { not: { properties: { cancelAtPeriodEnd: { const: true } }, required: ['cancelAtPeriodEnd'] } }, ...ITEMS_EXCLUSIVE },
  },
);

export const subscriptionCancelSchema = object(
  {
    atPeriodEnd: { type: 'boolean', default: false },
    feedback,
    comment: { type: 'string', maxLength: 500 },
  },
  [],
  { examples: [{ atPeriodEnd: true, feedback: 'too_expensive' }] },
);

export const subscriptionListQuerySchema = object({
  ...listQueryProperties('subscription'),
  customerId: { type: 'string', pattern: idPattern('customer') },
  status: { type: 'string', enum: [...SUBSCRIPTION_STATUSES] },
});

const priceSummary = object(
  { id: { type: 'string', pattern: idPattern('price') }, productName: { type: 'string' }, unitAmountCents: safeIntegerSchema, interval: { type: 'string' }, intervalCount: countSchema },
  ['id', 'productName', 'unitAmountCents', 'interval', 'intervalCount'],
);
const time = timestampSchema;
const maybeTime = nullable(timestampSchema);

const FIELDS = {
  object: { const: 'subscription' },
  id: { type: 'string', pattern: idPattern('subscription') },
  mode: modeSchema,
  status: { type: 'string', enum: [...SUBSCRIPTION_STATUSES] },
  customerId: { type: 'string', pattern: idPattern('customer') },
  price: nullable(priceSummary),
  quantity: nullable(countSchema),
  items: { type: 'array', items: object({ id: { type: 'string', pattern: idPattern('subscriptionItem') }, price: priceSummary, quantity: countSchema }, ['id', 'price', 'quantity']) },
  currentPeriodStart: time,
  currentPeriodEnd: time,
  billingCycleAnchor: time,
  cancelAtPeriodEnd: { type: 'boolean' },
  cancelAt: maybeTime,
  canceledAt: maybeTime,
  endedAt: maybeTime,
  cancelReason: nullable({ type: 'string' }),
  cancellationDetails: object({ reason: nullable({ type: 'string' }), feedback: nullable({ type: 'string' }), comment: nullable({ type: 'string' }) }, ['reason', 'feedback', 'comment']),
  trialStart: maybeTime,
  trialEnd: maybeTime,
  trialEndBehavior: { type: 'string', enum: [...TRIAL_END_BEHAVIORS] },
  pauseCollection: nullable(object({ behavior: { type: 'string', enum: [...PAUSE_BEHAVIORS] }, resumesAt: maybeTime }, ['behavior', 'resumesAt'])),
  discount: nullable(
    object(
      { couponId: { type: 'string', pattern: idPattern('coupon') }, start: timestampSchema, end: maybeTime },
      ['couponId', 'start', 'end'],
      { description: 'The coupon discounting its invoices: applied at `start`; a repeating one covers the periods that start before `end` (null for once and forever), then it is null.' },
    ),
  ),
  taxRateIds: { type: 'array', items: { type: 'string' } },
  subscriptionLinkId: nullable({ type: 'string' }),
  collectionMethod: { type: 'string', enum: [...COLLECTION_METHODS] },
  daysUntilDue: nullable(countSchema),
  pendingUpdate: nullable(
    object(
      {
        items: { type: 'array', items: object({ id: { type: 'string', pattern: idPattern('subscriptionItem') }, priceId: { type: 'string', pattern: idPattern('price') }, quantity: countSchema }, ['priceId', 'quantity']) },
        expiresAt: timestampSchema,
      },
      ['items', 'expiresAt'],
      { description: 'The items a change waits to apply until its invoice (`latestInvoiceId`) is paid; dropped at `expiresAt`.' },
    ),
  ),
  cardId: nullable({ type: 'string', pattern: idPattern('savedCard') }),
  cardMissingSince: maybeTime,
  latestInvoiceId: nullable({ type: 'string', pattern: idPattern('invoice') }),
  checkoutUrl: nullable({ type: 'string' }),
  reference: nullable({ type: 'string' }),
  createdAt: time,
};

export const subscriptionSchema = named('Subscription', { type: 'object', required: Object.keys(FIELDS), properties: FIELDS });
