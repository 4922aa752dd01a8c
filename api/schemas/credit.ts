// Invoice items, credit notes and customers' balance transactions: the create bodies, the lists'
// queries and the public objects (docs/reference/credit.md).
import { BALANCE_TRANSACTION_TYPES, CREDIT_NOTE_REASONS } from '../../domain/credit';
import { idPattern } from '../../domain/ids';
import { listQueryProperties } from '../platform/pagination';
import { modeSchema, named, nullable, object, safeIntegerSchema, timestampSchema } from './json-schema';

const id = (kind: Parameters<typeof idPattern>[0]) => ({ type: 'string', pattern: idPattern(kind) });
const MAX_CENTS = 100_000_000;

export const invoiceItemCreateSchema = object(
  {
    customerId: id('customer'),
    subscriptionId: { ...id('subscription'), description: 'One of that customer\'s subscriptions: the item waits for its next invoice. Without it, the customer\'s next invoice of any kind takes it.' },
    description: { type: 'string', minLength: 1, maxLength: 200 },
    unitAmountCents: { type: 'integer', minimum: -MAX_CENTS, maximum: MAX_CENTS, description: 'Negative for a credit.' },
    quantity: { type: 'integer', minimum: 1, maximum: 10000, default: 1 },
    discountable: { type: 'boolean', default: true, description: 'false: a coupon does not discount it.' },
  },
  ['customerId', 'description', 'unitAmountCents'],
  { examples: [{ customerId: 'cus_0mw8a3k2x9q1c7v5b4n6m2z8', description: 'Setup fee', unitAmountCents: 250000 }] },
);

export const invoiceItemListQuerySchema = object({
  ...listQueryProperties('invoiceItem'),
  customerId: id('customer'),
  subscriptionId: id('subscription'),
  pending: { type: 'boolean', description: '`true`: only items no invoice has taken yet; `false`: only those on an invoice.' },
});

export const invoiceItemSchema = named('InvoiceItem', {
  type: 'object',
  required: ['object', 'id', 'mode', 'customerId', 'subscriptionId', 'invoiceId', 'description', 'unitAmountCents', 'quantity', 'amountCents', 'discountable', 'createdAt'],
  properties: {
    object: { const: 'invoice_item' },
    id: id('invoiceItem'),
    mode: modeSchema,
    customerId: id('customer'),
    subscriptionId: nullable(id('subscription')),
    invoiceId: nullable({ ...id('invoice'), description: 'The invoice that took it; null while pending.' }),
    description: { type: 'string' },
    unitAmountCents: safeIntegerSchema,
    quantity: { type: 'integer', minimum: 1, maximum: 10000 },
    amountCents: safeIntegerSchema,
    discountable: { type: 'boolean' },
    createdAt: timestampSchema,
    deleted: { const: true, description: 'Only in the answer to DELETE.' },
  },
});

export const creditNoteCreateSchema = object(
  {
    invoiceId: { ...id('invoice'), description: 'An open or paid invoice (else 409 `invoice_not_open`).' },
    amountCents: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, 'x-reason': 'credit_note_amount', description: 'With the invoice\'s other credit notes, at most its total (else reason `credit_note_amount`).' },
    reason: { type: 'string', enum: [...CREDIT_NOTE_REASONS] },
    memo: { type: 'string', maxLength: 500 },
    refundCents: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Paid invoices only: refunded to the card that paid it (up to what it can take back; the rest to the balance). Default: all of `amountCents`.' },
    creditCents: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Paid invoices only: added to the customer\'s credit balance.' },
  },
  ['invoiceId', 'amountCents'],
  { examples: [{ invoiceId: 'in_0mw8a3k2x9q1c7v5b4n6m2z8', amountCents: 50000, reason: 'order_change' }] },
);

export const creditNoteListQuerySchema = object({ ...listQueryProperties('creditNote'), invoiceId: id('invoice'), customerId: id('customer') });

export const creditNoteSchema = named('CreditNote', {
  type: 'object',
  required: ['object', 'id', 'mode', 'number', 'invoiceId', 'customerId', 'amountCents', 'refundCents', 'creditCents', 'refundId', 'reason', 'memo', 'createdAt'],
  properties: {
    object: { const: 'credit_note' },
    id: id('creditNote'),
    mode: modeSchema,
    number: { type: 'string', pattern: '^CN-[0-9]{6,}$', description: 'From CN-000001 upward per account and mode, without gaps.' },
    invoiceId: id('invoice'),
    customerId: id('customer'),
    amountCents: safeIntegerSchema,
    refundCents: { ...safeIntegerSchema, description: 'Refunded to the card (`refundId`).' },
    creditCents: { ...safeIntegerSchema, description: 'Added to the customer\'s credit balance.' },
    refundId: nullable(id('refund')),
    reason: nullable({ type: 'string', enum: [...CREDIT_NOTE_REASONS] }),
    memo: nullable({ type: 'string' }),
    createdAt: timestampSchema,
  },
});

export const balanceTransactionCreateSchema = object(
  {
    amountCents: { type: 'integer', minimum: -MAX_CENTS, maximum: MAX_CENTS, not: { const: 0 }, description: 'Positive adds credit; negative takes it away. Not 0.' },
    description: { type: 'string', maxLength: 500 },
  },
  ['amountCents'],
  { examples: [{ amountCents: 100000, description: 'Goodwill credit' }] },
);

export const balanceTransactionListQuerySchema = object(listQueryProperties('balanceTransaction'));

export const balanceTransactionSchema = named('BalanceTransaction', {
  type: 'object',
  required: ['object', 'id', 'mode', 'customerId', 'type', 'amountCents', 'endingBalanceCents', 'invoiceId', 'creditNoteId', 'description', 'createdAt'],
  properties: {
    object: { const: 'balance_transaction' },
    id: id('balanceTransaction'),
    mode: modeSchema,
    customerId: id('customer'),
    type: { type: 'string', enum: [...BALANCE_TRANSACTION_TYPES] },
    amountCents: { ...safeIntegerSchema, description: 'Positive: credit added; negative: credit used or taken away.' },
    endingBalanceCents: { ...safeIntegerSchema, description: 'The customer\'s `creditBalanceCents` after it.' },
    invoiceId: nullable(id('invoice')),
    creditNoteId: nullable(id('creditNote')),
    description: nullable({ type: 'string' }),
    createdAt: timestampSchema,
  },
});
