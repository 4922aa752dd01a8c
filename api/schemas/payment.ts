import { idPattern } from '../../domain/ids';
import { PAYMENT_STATUSES } from '../../db/payments';
import { listQueryProperties } from '../platform/pagination';
import { countSchema, modeSchema, named, nullable, object, safeIntegerSchema, timestampSchema } from './json-schema';

const str = { type: 'string' };
const nullableString = nullable(str);
const cents = safeIntegerSchema;

export const paymentStatusSchema = { type: 'string', enum: [...PAYMENT_STATUSES] };

export const orderSchema = named('Order', {
  type: 'object',
  required: ['lines', 'subtotalCents', 'discount', 'shipping', 'tax', 'totalCents'],
  properties: {
    lines: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'quantity', 'unitAmountCents', 'amountCents', 'suggested'],
        properties: {
          id: { type: 'string', pattern: '^line-[0-9]+$' },
          name: str,
          description: str,
          quantity: countSchema,
          unitAmountCents: cents,
          amountCents: cents,
          suggested: { type: 'boolean' },
        },
      },
    },
    subtotalCents: cents,
    discount: { type: 'null', description: 'Shape not shown by the spec; always null on API-created checkouts.' },
    shipping: { type: 'null', description: 'Shape not shown by the spec; always null on API-created checkouts.' },
    tax: { type: 'null', description: 'Shape not shown by the spec; always null on API-created checkouts.' },
    totalCents: cents,
  },
});

export const paymentSchema = named('Payment', {
  type: 'object',
  required: [
    'object', 'id', 'mode', 'status', 'amountCents', 'currency', 'description', 'reference', 'customer', 'card', 'cardSave',
    'feeCents', 'netCents', 'refundedCents', 'failureMessage', 'paymentLinkId', 'savedCardId', 'invoiceId', 'checkoutId',
    'checkoutPageId', 'order', 'delivery', 'customFields', 'customerTaxId', 'termsAcceptedAt', 'createdAt', 'succeededAt',
  ],
  properties: {
    object: { const: 'payment' },
    id: { type: 'string', pattern: idPattern('payment') },
    mode: modeSchema,
    status: paymentStatusSchema,
    amountCents: cents,
    currency: { const: 'LKR' },
    description: str,
    reference: nullableString,
    customer: nullable({
      type: 'object',
      required: ['name', 'email', 'phone'],
      properties: { name: nullableString, email: str, phone: nullableString },
    }),
    card: nullable({
      type: 'object',
      required: ['scheme', 'last4'],
      properties: { scheme: { type: 'string', enum: ['visa', 'mastercard', 'amex', 'diners', 'discover'] }, last4: { type: 'string', pattern: '^[0-9]{4}$' } },
    }),
    cardSave: { type: 'string', description: '`not_requested`; `requested` when the customer agreed to keep the card; `failed` when a requested save failed.' },
    feeCents: nullable(cents),
    netCents: nullable(cents),
    refundedCents: cents,
    failureMessage: nullableString,
    paymentLinkId: nullableString,
    savedCardId: nullableString,
    invoiceId: nullableString,
    checkoutId: nullableString,
    checkoutPageId: nullableString,
    order: nullable(orderSchema),
    delivery: { type: 'null' },
    customFields: { type: 'null' },
    customerTaxId: { type: 'null' },
    termsAcceptedAt: { type: 'null' },
    createdAt: timestampSchema,
    succeededAt: nullable(timestampSchema),
  },
});

export const paymentListQuerySchema = object({ ...listQueryProperties('payment'), status: paymentStatusSchema });
