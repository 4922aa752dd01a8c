// A customer's credit balance: POST /v1/customers/{id}/balance_transactions (an adjustment) and
// GET /v1/customers/{id}/balance_transactions. See docs/reference/credit.md.
import type { BalanceTransactionRow } from '../../../db/balance-transactions';
import { balanceTransactionsQuery } from '../../../db/balance-transactions';
import type { CustomerRow } from '../../../db/customers';
import { idPattern } from '../../../domain/ids';
import { adjustBalance } from '../../../services/balance/adjust';
import { transactional } from '../../../services/run';
import { balanceTransactionView } from '../../../views/credit';
import { findIn, listRoute } from '../../platform/resource-routes';
import { defineRoute } from '../../platform/route';
import { balanceTransactionCreateSchema, balanceTransactionListQuerySchema, balanceTransactionSchema } from '../../schemas/credit';

const TAG = 'Customers';
const customerTable = { kind: 'customer', table: 'customers' } as const;
const PATH = '/v1/customers/{id}/balance_transactions';

export const balanceTransactionRoutes = [
  defineRoute<{ amountCents: number; description?: string }, unknown, { id: string }>({
    method: 'POST',
    path: PATH,
    operationId: 'createBalanceTransaction',
    summary: 'Adjust a customer\'s credit balance',
    description:
      'An `adjustment`: a positive `amountCents` adds credit, a negative one takes it away (the balance may go below zero; only a positive balance is used). The customer\'s next invoices use a positive balance at finalisation, up to each one\'s total (`creditAppliedCents`).',
    tag: TAG,
    auth: { permission: 'billing:write' },
    idempotent: true,
    params: { id: idPattern('customer') },
    body: balanceTransactionCreateSchema,
    responses: { 201: { description: 'The transaction, with the balance it left (`endingBalanceCents`).', schema: balanceTransactionSchema } },
    errors: ['mode_mismatch'],
    async handler(input) {
      const customer = await findIn<CustomerRow>(input.db, customerTable, input.params.id, input.caller);
      return { status: 201, body: balanceTransactionView(await adjustBalance(transactional(input), customer, input.body)) };
    },
  }),
  listRoute<BalanceTransactionRow>({
    path: PATH,
    operationId: 'listBalanceTransactions',
    summary: 'List a customer\'s balance transactions, newest first',
    description: 'Every change of the customer\'s `creditBalanceCents`: adjustments, credit applied to invoices, credit notes and invoice totals below zero. The newest one\'s `endingBalanceCents` is the balance.',
    tag: TAG,
    auth: { permission: 'billing:read' },
    within: customerTable,
    kind: 'balanceTransaction',
    query: balanceTransactionListQuerySchema,
    item: balanceTransactionSchema,
    answer: 'A page of balance transactions.',
    rows: ({ db, params }) => balanceTransactionsQuery(db, params.id),
    view: balanceTransactionView,
  }),
];
