// Invoices: the create body, the list's query and the public object.
import { idPattern } from '../../domain/ids';
import { COLLECTION_METHODS, INVOICE_STATUSES } from '../../domain/invoices';
import { listQueryProperties } from '../platform/pagination';
import { ITEMS_EXCLUSIVE, itemChangeFields } from './subscription';
import { countSchema, modeSchema, named, nullable, object, safeIntegerSchema, timestampSchema } from './json-schema';

export const invoiceCreateSchema = object(
  {
    customerId: { type: 'string', pattern: idPattern('customer') },
    collectionMethod: { type: 'string', enum: [...COLLECTION_METHODS], default: 'send_invoice' },
    daysUntilDue: { type: 'integer', minimum: 0, maximum: 365, default: 30, description: 'For `send_invoice`: the due date is this many days after finalising.' },
    memo: { type: 'string', maxLength: 500 },
    couponId: { type: 'string', minLength: 1, maxLength: 100, description: 'A valid coupon of yours in this mode (else 409 `coupon_invalid`), counted as applied: it discounts this invoice\'s discountable lines.' },
  },
  ['customerId'],
  { examples: [{ customerId: 'cus_0mw8a3k2x9q1c7v5b4n6m2z8', daysUntilDue: 14, memo: 'Thank you for your custom.' }] },
);

export const invoiceListQuerySchema = object({
  ...listQueryProperties('invoice'),
  customerId: { type: 'string', pattern: idPattern('customer') },
  subscriptionId: { type: 'string', pattern: idPattern('subscription') },
  status: { type: 'string', enum: [...INVOICE_STATUSES] },
});

export const upcomingInvoiceQuerySchema = object({ subscriptionId: { type: 'string', pattern: idPattern('subscription') } }, ['subscriptionId']);

export const invoicePreviewSchema = object(
  {
    subscriptionId: { type: 'string', pattern: idPattern('subscription') },
    ...itemChangeFields,
  },
  ['subscriptionId'],
  { examples: [{ subscriptionId: 'sub_0mw8a3k2x9q1c7v5b4n6m2z8' }, { subscriptionId: 'sub_0mw8a3k2x9q1c7v5b4n6m2z8', priceId: 'price_0mw8a3k2x9q1c7v5b4n6m2z8', prorationDate: '2027-01-15T04:30:00.000Z' }], dependentSchemas: ITEMS_EXCLUSIVE },
);

const cents = safeIntegerSchema;
const lineSchema = object(
  {
    description: { type: 'string' },
    quantity: countSchema,
    unitAmountCents: { ...safeIntegerSchema, description: 'Negative for credits.' },
    amountCents: cents,
    periodStart: nullable(timestampSchema),
    periodEnd: nullable(timestampSchema),
    proration: { type: 'boolean' },
    priceId: nullable({ type: 'string', pattern: idPattern('price'), description: 'The price the line bills; null for added lines and amounts carried over from an invoice below the card payment minimum.' }),
    discountable: { type: 'boolean', description: 'Whether the coupon discounts it (false for lines added with discountable false and amounts carried over).' },
    taxable: { type: 'boolean', description: 'Whether it is in the taxed amount (false for amounts carried over, taxed on their own invoice).' },
  },
  ['description', 'quantity', 'unitAmountCents', 'amountCents', 'periodStart', 'periodEnd', 'proration', 'priceId', 'discountable', 'taxable'],
);

const taxSchema = object(
  {
    taxRateId: { type: 'string' },
    percentage: { type: 'number', minimum: 0, maximum: 100 },
    inclusive: { type: 'boolean' },
    taxableAmountCents: { ...cents, description: 'The net amount taxed: subtotal − discount, less the tax that inclusive rates contain.' },
    amountCents: { ...cents, description: 'Inclusive: the tax contained in the amount; exclusive: the tax added to it.' },
  },
  ['taxRateId', 'percentage', 'inclusive', 'taxableAmountCents', 'amountCents'],
);

const FIELDS = {
  object: { const: 'invoice' },
  id: { anyOf: [{ type: 'string', pattern: idPattern('invoice') }, { type: 'string', pattern: `^upcoming_${idPattern('subscription').slice(1)}`, description: 'A preview\'s: not stored.' }] },
  mode: modeSchema,
  number: nullable({ type: 'string', pattern: '^INV-[0-9]{6,}$', description: 'Given when finalised, from INV-000001 upward per account and mode, without gaps.' }),
  status: { type: 'string', enum: [...INVOICE_STATUSES] },
  customerId: { type: 'string', pattern: idPattern('customer') },
  subscriptionId: nullable({ type: 'string', pattern: idPattern('subscription') }),
  billingReason: { type: 'string', enum: ['subscription_create', 'subscription_cycle', 'subscription_update', 'manual'] },
  periodStart: nullable(timestampSchema),
  periodEnd: nullable(timestampSchema),
  lines: { type: 'array', items: lineSchema },
  subtotalCents: { ...cents, description: 'The sum of the lines.' },
  discountCents: { ...cents, description: 'The coupon on the discountable lines: a percentage rounded half away from zero once per invoice, or an amount off of at most those lines.' },
  couponId: nullable({ type: 'string' }),
  taxCents: { ...cents, description: 'The exclusive taxes only (those added on top); an inclusive tax is in `taxes` but not here.' },
  taxes: { type: 'array', items: taxSchema, description: 'One entry per tax rate, computed once per invoice and rate.' },
  totalCents: { ...cents, description: 'subtotalCents − discountCents + taxCents.' },
  creditAppliedCents: { ...cents, description: 'The customer\'s credit balance used at finalisation: at most totalCents.' },
  amountDueCents: { ...cents, description: 'totalCents − creditAppliedCents − creditNotesCents, never below 0.' },
  amountPaidCents: { ...cents, description: 'What was collected for it; credit notes leave it unchanged.' },
  creditNotesCents: { ...cents, description: 'The invoice\'s credit notes together.' },
  collectionMethod: { type: 'string', enum: [...COLLECTION_METHODS] },
  dueDate: nullable(timestampSchema),
  memo: nullable({ type: 'string' }),
  currency: { const: 'LKR' },
  attemptCount: countSchema,
  nextAttemptAt: nullable(timestampSchema),
  lastFailure: nullable({ type: 'string' }),
  paidAt: nullable(timestampSchema),
  hostedInvoiceUrl: nullable({ type: 'string' }),
  createdAt: timestampSchema,
};

export const invoiceSchema = named('Invoice', { type: 'object', required: Object.keys(FIELDS), properties: FIELDS });
