// Payments: GET /v1/payments (status filter, newest first) and GET /v1/payments/{id}.
import { paymentsPage, type PaymentRow, type PaymentStatus } from '../../db/payments';
import { paymentView } from '../../views/payment';
import { type ListQuery } from '../platform/pagination';
import { getRoute, listRoute } from '../platform/resource-routes';
import { paymentListQuerySchema, paymentSchema } from '../schemas/payment';

export const paymentRoutes = [
  listRoute<PaymentRow, ListQuery & { status?: PaymentStatus }>({
    path: '/v1/payments',
    operationId: 'listPayments',
    summary: 'List payments, newest first',
    tag: 'Payments',
    auth: { permission: 'payments:read' },
    kind: 'payment',
    query: paymentListQuerySchema,
    item: paymentSchema,
    answer: 'A page of payments.',
    pageRows: ({ db, scope, query }, bounds) => paymentsPage(db, scope, query.status, bounds),
    view: paymentView,
  }),
  getRoute<PaymentRow>({
    path: '/v1/payments/{id}',
    operationId: 'getPayment',
    summary: 'Get a payment',
    tag: 'Payments',
    auth: { permission: 'payments:read' },
    kind: 'payment',
    table: 'payments',
    item: paymentSchema,
    answer: 'The payment.',
    view: paymentView,
  }),
];
