// Subscriptions: the create body (the fields built so far), the list's query and the object.
import { idPattern } from '../../domain/ids';
import { COLLECTION_METHODS } from '../../domain/invoices';
import { SUBSCRIPTION_STATUSES } from '../../domain/subscription-rules';
import { listQueryProperties } from '../platform/pagination';
import { customerCreateSchema } from './customer';
import { modeSchema, named, nullable, object, timestampSchema } from './json-schema';

const quantity = { type: 'integer', minimum: 1, maximum: 10000, default: 1 };

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
    daysUntilDue: { type: 'integer', minimum: 0, maximum: 365, default: 30 },
    reference: { type: 'string', maxLength: 120 },
  },
  [],
  {
    allOf: [
      { dependentSchemas: { customerId: { properties: { customer: false } } }, if: { required: ['customer'] }, else: { required: ['customerId'] } },
      { dependentSchemas: { priceId: { properties: { items: false } }, quantity: { properties: { items: false } } }, if: { required: ['items'] }, else: { required: ['priceId'] } },
    ],
  },
);

export const subscriptionCancelSchema = object(
  {
    atPeriodEnd: { type: 'boolean', default: false },
    feedback: { type: 'string', enum: ['customer_service', 'low_quality', 'missing_features', 'other', 'switched_service', 'too_complex', 'too_expensive', 'unused'] },
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
  { id: { type: 'string', pattern: idPattern('price') }, productName: { type: 'string' }, unitAmountCents: { type: 'integer' }, interval: { type: 'string' }, intervalCount: { type: 'integer' } },
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
  quantity: nullable({ type: 'integer' }),
  items: { type: 'array', items: object({ id: { type: 'string', pattern: idPattern('subscriptionItem') }, price: priceSummary, quantity: { type: 'integer' } }, ['id', 'price', 'quantity']) },
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
  trialEndBehavior: { type: 'string', enum: ['create_invoice', 'pause', 'cancel'] },
  pauseCollection: { type: 'null' },
  discount: { type: 'null' },
  taxRateIds: { type: 'array', items: { type: 'string' } },
  subscriptionLinkId: nullable({ type: 'string' }),
  collectionMethod: { type: 'string', enum: [...COLLECTION_METHODS] },
  daysUntilDue: nullable({ type: 'integer' }),
  pendingUpdate: { type: 'null' },
  cardId: nullable({ type: 'string', pattern: idPattern('savedCard') }),
  cardMissingSince: maybeTime,
  latestInvoiceId: nullable({ type: 'string', pattern: idPattern('invoice') }),
  checkoutUrl: nullable({ type: 'string' }),
  reference: nullable({ type: 'string' }),
  createdAt: time,
};

export const subscriptionSchema = named('Subscription', { type: 'object', required: Object.keys(FIELDS), properties: FIELDS });
