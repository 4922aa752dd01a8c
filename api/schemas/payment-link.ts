// Payment links: what a link sells is a checkout's purchase (the same properties and rules), and
// each payer gets a checkout of it. See docs/reference/payment-links.md.
import { idPattern } from '../../domain/ids';
import { CURRENCY } from '../../domain/money';
import { checkoutCreateSchema, purchaseProperties, purchaseRule, returnUrlSchema } from './checkout';
import { localeSchema } from './customer';
import { countSchema, modeSchema, named, nullable, object, safeIntegerSchema, timestampSchema, type JsonSchema } from './json-schema';

const checkoutFields = checkoutCreateSchema.properties as Record<string, JsonSchema>;

export const paymentLinkCreateSchema = object(
  {
    ...purchaseProperties,
    locale: { ...checkoutFields.locale, description: 'The language of the link\'s `url` (a payer may switch); each payer\'s checkout is in the language they chose.' },
    reference: { ...checkoutFields.reference, description: 'Put on every payment the link takes.' },
    successUrl: { ...returnUrlSchema, description: `Where each payer is sent once paid. ${returnUrlSchema.description}` },
    saveCard: { ...checkoutFields.saveCard, description: 'Each payer\'s checkout offers to keep the card.' },
  },
  [],
  {
    ...purchaseRule,
    examples: [
      { amountCents: 250000, description: 'Donation to the temple fund' },
      { lineItems: [{ name: 'Cooking class', description: 'Saturday 10:00', unitAmountCents: 450000, quantity: 1 }], locale: 'si', successUrl: 'https://shop.example/booked' },
    ],
  },
);

export const paymentLinkSchema = named('PaymentLink', {
  type: 'object',
  required: [
    'object', 'id', 'mode', 'active', 'url', 'amountCents', 'currency', 'description', 'lineItems', 'locale', 'reference',
    'successUrl', 'saveCard', 'paymentCount', 'createdAt', 'deactivatedAt',
  ],
  properties: {
    object: { const: 'payment_link' },
    id: { type: 'string', pattern: idPattern('paymentLink') },
    mode: modeSchema,
    active: { type: 'boolean', description: 'false once turned off (`DELETE`): its page answers `link_inactive`.' },
    url: { type: 'string', format: 'uri', description: 'The link to share: `{checkout_url}/pay/<id>`, with `/si` or `/ta` before `pay` for those locales.' },
    amountCents: { ...safeIntegerSchema, description: 'What each payer pays: the fixed amount, or the line items\' total.' },
    currency: { const: CURRENCY },
    description: { type: 'string' },
    lineItems: nullable(purchaseProperties.lineItems),
    locale: localeSchema,
    reference: nullable({ type: 'string' }),
    successUrl: nullable({ type: 'string' }),
    saveCard: { type: 'boolean' },
    paymentCount: { ...countSchema, description: 'Payments the link took: its payers\' payments that succeeded (refunded ones included).' },
    createdAt: timestampSchema,
    deactivatedAt: nullable(timestampSchema),
  },
});

export const paymentLinkListSchema = named('PaymentLinkList', {
  type: 'object',
  required: ['object', 'data', 'hasMore', 'nextCursor'],
  properties: {
    object: { const: 'list' },
    data: { type: 'array', maxItems: 200, items: paymentLinkSchema },
    hasMore: { const: false },
    nextCursor: { type: 'null' },
  },
});
