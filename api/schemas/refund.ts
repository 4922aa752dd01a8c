import { idPattern } from '../../domain/ids';
import { REFUND_MIN_CENTS } from '../../db/refunds';
import { listQueryProperties } from '../platform/pagination';
import { modeSchema, named, nullable, object, safeIntegerSchema, timestampSchema } from './json-schema';

const paymentIdSchema = { type: 'string', pattern: idPattern('payment') };

export const refundCreateSchema = object(
  {
    paymentId: { ...paymentIdSchema, description: 'A `succeeded` or `partially_refunded` payment of yours (else 409 `not_refundable`).' },
    amountCents: {
      type: 'integer',
      minimum: REFUND_MIN_CENTS,
      maximum: Number.MAX_SAFE_INTEGER,
      'x-reason': 'amount',
      description: 'At least 100 cents, at most what is left to refund (else reason `amount`). Omitted: everything left.',
    },
    reason: { type: 'string', maxLength: 200 },
  },
  ['paymentId'],
  { examples: [{ paymentId: 'pay_0mw8a3k2x9q1c7v5b4n6m2z8', amountCents: 50000, reason: 'One item returned' }] },
);

export const refundListQuerySchema = object({ ...listQueryProperties('refund'), paymentId: paymentIdSchema });

export const refundSchema = named('Refund', {
  type: 'object',
  required: ['object', 'id', 'mode', 'paymentId', 'status', 'amountCents', 'currency', 'reason', 'failureMessage', 'createdAt', 'succeededAt'],
  properties: {
    object: { const: 'refund' },
    id: { type: 'string', pattern: idPattern('refund') },
    mode: modeSchema,
    paymentId: paymentIdSchema,
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
    amountCents: safeIntegerSchema,
    currency: { const: 'LKR' },
    reason: nullable({ type: 'string' }),
    failureMessage: nullable({ type: 'string', description: 'Why the refund failed.' }),
    createdAt: timestampSchema,
    succeededAt: nullable(timestampSchema),
  },
});
