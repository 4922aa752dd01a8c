import { PAYMENT_MAX_CENTS, PAYMENT_MIN_CENTS } from '../../domain/checkout-rules';
import { idPattern } from '../../domain/ids';
import { SRI_LANKAN_PHONE_PATTERN } from '../../domain/phone';
import { emailSchema, localeSchema } from './customer';
import { modeSchema, named, nullable, object, timestampSchema } from './json-schema';
import { paymentSchema } from './payment';

export const returnUrlSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 2000,
  pattern: '^[A-Za-z][A-Za-z0-9+.-]*://',
  description: 'https, http on localhost, or an app URL scheme (myapp://...); never javascript:, data: and the like.',
};

/** What is bought, a checkout's and a payment link's alike: a fixed amount, or line items. */
export const purchaseProperties = {
  amountCents: {
    type: 'integer',
    minimum: PAYMENT_MIN_CENTS,
    maximum: PAYMENT_MAX_CENTS,
    'x-reason': 'amount',
    description: 'Required unless `lineItems`; refused together with `lineItems`; outside the range, reason `amount`.',
  },
  description: { type: 'string', minLength: 1, maxLength: 120, description: 'Required with `amountCents`; with `lineItems` a summary is made when omitted.' },
  lineItems: {
    type: 'array',
    minItems: 1,
    maxItems: 10,
    description: 'The total must come to 1000..100000000 cents (reason `amount`).',
    items: object(
      {
        name: { type: 'string', minLength: 1, maxLength: 80 },
        description: { type: 'string', maxLength: 200 },
        unitAmountCents: { type: 'integer', minimum: 100, maximum: 100_000_000 },
        quantity: { type: 'integer', minimum: 1, maximum: 99 },
      },
      ['name', 'unitAmountCents', 'quantity'],
    ),
  },
};

/** `lineItems`, or `amountCents` with a `description`; never both. */
export const purchaseRule = {
  dependentSchemas: { amountCents: { properties: { lineItems: false } } },
  if: { required: ['lineItems'] },
  else: { required: ['amountCents', 'description'] },
};

export const checkoutCreateSchema = object({
  ...purchaseProperties,
  locale: { ...localeSchema, default: 'en' },
  reference: { type: 'string', maxLength: 64 },
  customer: object(
    {
      name: { type: 'string', minLength: 2, maxLength: 80 },
      email: emailSchema,
      phone: { type: 'string', maxLength: 24, 'x-invalid': 'Must be a Sri Lankan phone number, such as 077 123 4567 or +94 11 234 5678.', pattern: SRI_LANKAN_PHONE_PATTERN, description: 'Sri Lankan number (077 123 4567, +94 11 234 5678); spaces and dashes removed; returned as +94...' },
    },
    ['name', 'email'],
  ),
  successUrl: returnUrlSchema,
  cancelUrl: returnUrlSchema,
  saveCard: { type: 'boolean', default: false },
}, [], {
  ...purchaseRule,
  examples: [
    { amountCents: 350000, description: 'Tea for two', reference: 'order-1001' },
    { lineItems: [{ name: 'Ceylon tea', description: '250 g', unitAmountCents: 120000, quantity: 2 }], locale: 'si', successUrl: 'https://shop.example/paid' },
  ],
});

export const checkoutSchema = named('Checkout', {
  type: 'object',
  required: ['object', 'id', 'mode', 'status', 'url', 'expiresAt', 'payment'],
  properties: {
    object: { const: 'checkout' },
    id: { type: 'string', pattern: idPattern('checkout') },
    mode: modeSchema,
    status: { type: 'string', enum: ['open', 'completed', 'expired'] },
    url: { type: 'string', format: 'uri' },
    locale: localeSchema,
    successUrl: nullable({ type: 'string' }),
    cancelUrl: nullable({ type: 'string' }),
    saveCard: { type: 'boolean' },
    expiresAt: timestampSchema,
    createdAt: timestampSchema,
    payment: paymentSchema,
  },
});
