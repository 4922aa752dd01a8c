// Invoices: POST /v1/invoices (a draft), GET /v1/invoices (customerId, subscriptionId, status),
// GET /v1/invoices/{id}, and the actions POST /v1/invoices/{id}/finalize, /send, /void and
// /mark_uncollectible. See docs/invoices.md.
import { idPattern } from '../../../domain/ids';
import type { InvoiceAction } from '../../../domain/invoices';
import { invoicesQuery, type InvoiceFilters, type InvoiceRow } from '../../../db/invoices';
import { createInvoice, type InvoiceInput } from '../../../services/invoices/create';
import { transitionInvoice } from '../../../services/invoices/transition';
import { resendInvoice } from '../../../services/invoices/notify';
import { transactional } from '../../../services/run';
import { invoiceView } from '../../../views/invoice';
import { type ListQuery } from '../../platform/pagination';
import { findIn, getRoute, listRoute } from '../../platform/resource-routes';
import { defineRoute, type RouteSpec } from '../../platform/route';
import type { Reason } from '../../../domain/errors';
import { invoiceCreateSchema, invoiceListQuerySchema, invoiceSchema } from '../../schemas/invoice';

const TAG = 'Invoices';
const invoiceTable = { kind: 'invoice', table: 'invoices' } as const;
const invoiceLinks = { getInvoice: { operationId: 'getInvoice', parameters: { id: '$response.body#/id' } } };

function actionRoute(action: InvoiceAction, spec: { operationId: string; summary: string; description: string; answer: string; errors: Reason[] }): RouteSpec {
  return defineRoute<unknown, unknown, { id: string }>({
    method: 'POST',
    path: `/v1/invoices/{id}/${action}`,
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tag: TAG,
    auth: { permission: 'billing:write' },
    idempotent: true,
    params: { id: idPattern('invoice') },
    responses: { 200: { description: spec.answer, schema: invoiceSchema } },
    errors: spec.errors,
    async handler(input) {
      const invoice = await findIn<InvoiceRow>(input.db, invoiceTable, input.params.id, input.caller);
      return { status: 200, body: invoiceView(await transitionInvoice(transactional(input), invoice.id, action)) };
    },
  });
}

export const invoiceRoutes = [
  defineRoute<InvoiceInput, unknown>({
    method: 'POST',
    path: '/v1/invoices',
    operationId: 'createInvoice',
    summary: 'Create an invoice (a draft)',
    description: 'A draft for the customer, with the customer\'s pending invoice items not tied to a subscription as its lines. Finalise it to number it and collect it.',
    tag: TAG,
    auth: { permission: 'billing:write' },
    idempotent: true,
    body: invoiceCreateSchema,
    responses: { 201: { description: 'The new draft.', schema: invoiceSchema, links: invoiceLinks } },
    // 404 also without a reason: no such customer.
    errors: ['mode_mismatch'],
    async handler(input) {
      return { status: 201, body: invoiceView(await createInvoice(transactional(input), input.caller, input.body)) };
    },
  }),
  listRoute<InvoiceRow, ListQuery & InvoiceFilters>({
    path: '/v1/invoices',
    operationId: 'listInvoices',
    summary: 'List invoices, newest first',
    description: 'All invoices, or a customer\'s, a subscription\'s, or those of one status.',
    tag: TAG,
    auth: { permission: 'billing:read' },
    kind: 'invoice',
    query: invoiceListQuerySchema,
    item: invoiceSchema,
    answer: 'A page of invoices.',
    rows: ({ db, scope, query }) => invoicesQuery(db, scope, query),
    view: invoiceView,
  }),
  getRoute<InvoiceRow>({
    path: '/v1/invoices/{id}',
    operationId: 'getInvoice',
    summary: 'Get an invoice',
    tag: TAG,
    auth: { permission: 'billing:read' },
    ...invoiceTable,
    item: invoiceSchema,
    answer: 'The invoice.',
    view: invoiceView,
  }),
  actionRoute('finalize', {
    operationId: 'finalizeInvoice',
    summary: 'Finalise a draft invoice',
    description: 'Numbers the draft (INV-000001 upward per account and mode, without gaps) and opens it; with `send_invoice` its due date is `daysUntilDue` days on. An invoice that owes nothing is paid at once (`invoice.paid`). 409 for an invoice that is not a draft.',
    answer: 'The invoice, `open` (or `paid`).',
    errors: [],
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'POST',
    path: '/v1/invoices/{id}/send',
    operationId: 'sendInvoice',
    summary: 'Send an invoice to the customer again',
    description: 'Emails an open invoice collected by sending (`send_invoice`) to its customer again, with the link to its hosted page (`invoice.sent`). Finalising such an invoice sends it the first time; reminders go out by themselves three days before the due date and when it passes.',
    tag: TAG,
    auth: { permission: 'billing:write' },
    idempotent: true,
    params: { id: idPattern('invoice') },
    responses: { 200: { description: 'The invoice.', schema: invoiceSchema } },
    errors: ['invoice_not_open'],
    async handler(input) {
      const invoice = await findIn<InvoiceRow>(input.db, invoiceTable, input.params.id, input.caller);
      return { status: 200, body: invoiceView(await resendInvoice(transactional(input), invoice.id)) };
    },
  }),
  actionRoute('void', {
    operationId: 'voidInvoice',
    summary: 'Void an invoice',
    description: 'A draft or open invoice is voided for good (`invoice.voided`): nothing more is collected on it.',
    answer: 'The invoice, `void`.',
    errors: ['invoice_not_open'],
  }),
  actionRoute('mark_uncollectible', {
    operationId: 'markInvoiceUncollectible',
    summary: 'Mark an invoice uncollectible',
    description: 'An open invoice the merchant no longer expects to be paid (`invoice.marked_uncollectible`).',
    answer: 'The invoice, `uncollectible`.',
    errors: ['invoice_not_open'],
  }),
];
