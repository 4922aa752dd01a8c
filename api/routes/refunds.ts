// Refunds: POST /v1/refunds, GET /v1/refunds (paymentId filter, newest first) and
// GET /v1/refunds/{id}. See docs/reference/refunds.md.
import { refundsQuery, type RefundRow } from '../../db/refunds';
import { createRefund, type RefundInput } from '../../services/refunds/create';
import { refundView } from '../../views/refund';
import { type ListQuery } from '../platform/pagination';
import { getRoute, listRoute } from '../platform/resource-routes';
import { defineRoute } from '../platform/route';
import { refundCreateSchema, refundListQuerySchema, refundSchema } from '../schemas/refund';

const TAG = 'Refunds';

export const refundRoutes = [
  defineRoute<RefundInput, unknown>({
    method: 'POST',
    path: '/v1/refunds',
    operationId: 'createRefund',
    summary: 'Refund a payment',
    description:
      'Refunds part or all of what is left of a `succeeded` or `partially_refunded` payment. The refund is `pending` and counts at once in the payment\'s `refundedCents` (status `partially_refunded`, or `refunded` once nothing is left); the processor refunds only settled payments, so the outcome follows as `refund.succeeded` or `refund.failed` (a failed refund\'s amount is refundable again). Refunds on one payment never sum past its amount, however many are sent at once. A payment the key cannot see answers 404.',
    tag: TAG,
    auth: { permission: 'refunds:write' },
    idempotent: true,
    // One statement: the Idempotency-Key with its answer, the payment's refunded amount and the refund.
    transaction: 'statement',
    body: refundCreateSchema,
    responses: {
      201: {
        description: 'The refund, `pending`.',
        schema: refundSchema,
        links: {
          getRefund: { operationId: 'getRefund', parameters: { id: '$response.body#/id' } },
          getPayment: { operationId: 'getPayment', parameters: { id: '$response.body#/paymentId' } },
        },
      },
    },
    // 404 also without a reason: the key has no such payment.
    errors: ['amount', 'mode_mismatch', 'not_refundable'],
    async handler(input) {
      const { refund, json } = await createRefund(input, input.caller, input.body, input.idempotencyKey!);
      return { status: 201, body: refundView(refund), json };
    },
  }),
  listRoute<RefundRow, ListQuery & { paymentId?: string }>({
    path: '/v1/refunds',
    operationId: 'listRefunds',
    summary: 'List refunds, newest first',
    description: 'All refunds, or one payment\'s (`paymentId`).',
    tag: TAG,
    auth: { permission: 'payments:read' },
    kind: 'refund',
    query: refundListQuerySchema,
    item: refundSchema,
    answer: 'A page of refunds.',
    rows: ({ db, scope, query }) => refundsQuery(db, scope, query.paymentId),
    view: refundView,
  }),
  getRoute<RefundRow>({
    path: '/v1/refunds/{id}',
    operationId: 'getRefund',
    summary: 'Get a refund',
    tag: TAG,
    auth: { permission: 'payments:read' },
    kind: 'refund',
    table: 'refunds',
    item: refundSchema,
    answer: 'The refund.',
    view: refundView,
  }),
];
