// Saved cards: the Saved card object, the list's query and envelope (one list of the newest 200),
// and the charge's body. See docs/reference/cards.md.
import { SAVED_CARD_LIST_SIZE } from '../../domain/saved-cards';
import { idPattern } from '../../domain/ids';
import { listQueryProperties } from '../platform/pagination';
import { purchaseProperties } from './checkout';
import { localeSchema } from './customer';
import { modeSchema, named, nullable, object, timestampSchema } from './json-schema';

export const savedCardSchema = named('SavedCard', {
  type: 'object',
  required: ['object', 'id', 'mode', 'customerEmail', 'scheme', 'last4', 'expiry', 'paymentId', 'consent', 'active', 'createdAt', 'retiredAt'],
  properties: {
    object: { const: 'saved_card' },
    id: { type: 'string', pattern: idPattern('savedCard') },
    mode: modeSchema,
    customerEmail: { type: 'string', description: 'The address given at checkout. A customer with this email (any letter case) in this mode owns the card.' },
    scheme: { type: 'string', enum: ['visa', 'mastercard', 'amex', 'diners', 'discover'] },
    last4: { type: 'string', pattern: '^[0-9]{4}$' },
    expiry: object({ month: { type: 'integer', minimum: 1, maximum: 12 }, year: { type: 'integer', minimum: 0, maximum: 9999 } }, ['month', 'year']),
    paymentId: { type: 'string', pattern: idPattern('payment'), description: 'The payment at which the card was kept.' },
    consent: object(
      {
        agreedAt: timestampSchema,
        locale: localeSchema,
        wording: { type: 'string', description: 'The consent exactly as the customer saw it and ticked it.' },
      },
      ['agreedAt', 'locale', 'wording'],
    ),
    active: { type: 'boolean', description: 'false once deleted.' },
    createdAt: timestampSchema,
    retiredAt: nullable(timestampSchema),
  },
});

export const savedCardListQuerySchema = object({
  ...listQueryProperties('savedCard'),
  customerEmail: { type: 'string', minLength: 3, maxLength: 254, description: 'Only the cards of this email (any letter case).' },
});

export const savedCardListSchema = named('SavedCardList', {
  type: 'object',
  required: ['object', 'data', 'hasMore', 'nextCursor'],
  properties: {
    object: { const: 'list' },
    data: { type: 'array', maxItems: SAVED_CARD_LIST_SIZE, items: savedCardSchema },
    hasMore: { const: false },
    nextCursor: { type: 'null' },
  },
});

export const cardChargeSchema = object(
  {
    amountCents: { ...purchaseProperties.amountCents, description: '1000 to 100000000 cents; outside the range, reason `amount`.' },
    description: { type: 'string', minLength: 1, maxLength: 120 },
    reference: { type: 'string', maxLength: 64, description: 'Your own reference, returned on the payment and its events.' },
  },
  ['amountCents', 'description'],
  { examples: [{ amountCents: 350000, description: 'Tea subscription, March', reference: 'order-1042' }] },
);
