// Payments: GET /v1/payments (status filter, newest first) and GET /v1/payments/{id}.
import { idPattern } from '../../domain/ids';
import { paymentsQuery, paymentView, type PaymentRow, type PaymentStatus } from '../../db/payments';
import { findOwned } from '../platform/ownership';
import { listSchema, page, type ListQuery } from '../platform/pagination';
import { defineRoute } from '../platform/route';
import { paymentListQuerySchema, paymentSchema } from '../schemas/payment';

export const paymentRoutes = [
  defineRoute<unknown, ListQuery & { status?: PaymentStatus }>({
    method: 'GET',
    path: '/v1/payments',
    operationId: 'listPayments',
    summary: 'List payments, newest first',
    tag: 'Payments',
    auth: { permission: 'payments:read' },
    query: paymentListQuerySchema,
    responses: { 200: { description: 'A page of payments.', schema: listSchema(paymentSchema) } },
    async handler({ caller, query, db }) {
      const rows = paymentsQuery(db, { accountId: caller.account.id, mode: caller.mode }, query.status);
      return { status: 200, body: await page<PaymentRow, unknown>(rows, query, paymentView) };
    },
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'GET',
    path: '/v1/payments/{id}',
    operationId: 'getPayment',
    summary: 'Get a payment',
    tag: 'Payments',
    auth: { permission: 'payments:read' },
    params: { id: idPattern('payment') },
    responses: { 200: { description: 'The payment.', schema: paymentSchema } },
    async handler({ caller, params, db }) {
      return { status: 200, body: paymentView(await findOwned<PaymentRow>(db, 'payments', params.id, caller, 'payment')) };
    },
  }),
];
