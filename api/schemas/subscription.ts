// Subscriptions: the create body (the fields built so far), the list's query and the object.
import { idPattern } from '../../domain/ids';
import { COLLECTION_METHODS } from '../../domain/invoices';
import { PAUSE_BEHAVIORS } from '../../domain/pause-collection';
import { SUBSCRIPTION_STATUSES, TRIAL_END_BEHAVIORS } from '../../domain/subscription-rules';
import { listQueryProperties } from '../platform/pagination';
import { customerCreateSchema } from './customer';
import { countSchema, modeSchema, named, nullable, object, safeIntegerSchema, timestampSchema, type JsonSchema } from './json-schema';

const quantity = { type: 'integer', minimum: 1, maximum: 10000, default: 1 };

/** Fields of the spec this version takes but answers 501 for (coupons, taxes, price changes and pauses come next). */
function notBuiltYet(fields: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(fields).map(([name, schema]) => [name, { ...schema, description: 'The spec\'s; answered 501 NOT_SUPPORTED in this version.' }]));
}
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
    ...notBuiltYet({ couponId: { type: 'string' }, taxRateIds: { type: 'array', maxItems: 5, items: { type: 'string' } } }),
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
    pauseCollection: {
      ...nullable(object({ behavior: { type: 'string', enum: [...PAUSE_BEHAVIORS] }, resumesAt: { type: 'string', format: 'date-time' } }, ['behavior'])),
      description: 'Only while the subscription renews (else 409 `subscription_change_refused`): invoices made meanwhile are kept as drafts, marked uncollectible or voided, never collected; collection resumes by itself at `resumesAt` (after now, within two years), or when set to null.',
    },
    ...notBuiltYet({
      items: { type: 'array', maxItems: 10, items: { type: 'object' } },
      priceId: { type: 'string', pattern: idPattern('price') },
      quantity: { type: 'integer', minimum: 1, maximum: 10000 },
      prorationBehavior: { type: 'string', enum: ['create_prorations', 'always_invoice', 'none'] },
      prorationDate: { type: 'string', format: 'date-time' },
      paymentBehavior: { type: 'string', enum: ['allow_incomplete', 'pending_if_incomplete'] },
      couponId: nullable({ type: 'string' }),
      taxRateIds: { type: 'array', maxItems: 5, items: { type: 'string' } },
    }),
  },
  [],
  { examples: [{ cancelAt: '2027-06-30T18:30:00.000Z', reference: 'order-1042' }], dependentSchemas: { cancelAt: { not: { properties: { cancelAtPeriodEnd: { const: true } }, required: ['cancelAtPeriodEnd'] } } } },
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
  discount: { type: 'null' },
  taxRateIds: { type: 'array', items: { type: 'string' } },
  subscriptionLinkId: nullable({ type: 'string' }),
  collectionMethod: { type: 'string', enum: [...COLLECTION_METHODS] },
  daysUntilDue: nullable(countSchema),
  pendingUpdate: { type: 'null' },
  cardId: nullable({ type: 'string', pattern: idPattern('savedCard') }),
  cardMissingSince: maybeTime,
  latestInvoiceId: nullable({ type: 'string', pattern: idPattern('invoice') }),
  checkoutUrl: nullable({ type: 'string' }),
  reference: nullable({ type: 'string' }),
  createdAt: time,
};

export const subscriptionSchema = named('Subscription', { type: 'object', required: Object.keys(FIELDS), properties: FIELDS });
