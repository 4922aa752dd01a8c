// Invoice items: POST /v1/invoice_items, GET /v1/invoice_items (customerId, subscriptionId,
// pending), GET /v1/invoice_items/{id}, DELETE /v1/invoice_items/{id} while pending. See
// docs/reference/credit.md.
import { idPattern } from '../../../domain/ids';
import { invoiceItemsQuery, type InvoiceItemFilters, type InvoiceItemRow } from '../../../db/invoice-items';
import { createInvoiceItem, type InvoiceItemInput } from '../../../services/invoice-items/create';
import { deleteInvoiceItem } from '../../../services/invoice-items/delete';
import { transactional } from '../../../services/run';
import { invoiceItemView } from '../../../views/credit';
import { type ListQuery } from '../../platform/pagination';
import { findIn, getRoute, listRoute } from '../../platform/resource-routes';
import { defineRoute } from '../../platform/route';
import { invoiceItemCreateSchema, invoiceItemListQuerySchema, invoiceItemSchema } from '../../schemas/credit';

const TAG = 'Invoice items';
const itemTable = { kind: 'invoiceItem', table: 'invoice_items', noun: 'invoice item' } as const;
const itemLinks = { getInvoiceItem: { operationId: 'getInvoiceItem', parameters: { id: '$response.body#/id' } } };

export const invoiceItemRoutes = [
  defineRoute<InvoiceItemInput, unknown>({
    method: 'POST',
    path: '/v1/invoice_items',
    operationId: 'createInvoiceItem',
    summary: 'Create an invoice item',
    description:
      'A one-off line pending for the customer. With `subscriptionId` (one of the customer\'s) the subscription\'s next invoice takes it (a renewal, or an invoice a change makes now); without, the customer\'s next invoice of any kind (a renewal, a first invoice, `POST /v1/invoices`). Taken once; previews and the upcoming invoice show it.',
    tag: TAG,
    auth: { permission: 'billing:write' },
    idempotent: true,
    body: invoiceItemCreateSchema,
    responses: { 201: { description: 'The item, pending (`invoiceId` null).', schema: invoiceItemSchema, links: itemLinks } },
    // 404 also without a reason: no such customer or subscription.
    errors: ['mode_mismatch', 'subscription_ended'],
    async handler(input) {
      return { status: 201, body: invoiceItemView(await createInvoiceItem(transactional(input), input.caller, input.body)) };
    },
  }),
  listRoute<InvoiceItemRow, ListQuery & InvoiceItemFilters>({
    path: '/v1/invoice_items',
    operationId: 'listInvoiceItems',
    summary: 'List invoice items, newest first',
    description: 'All items, or a customer\'s, a subscription\'s, or only the pending ones (`pending=true`).',
    tag: TAG,
    auth: { permission: 'billing:read' },
    kind: 'invoiceItem',
    query: invoiceItemListQuerySchema,
    item: invoiceItemSchema,
    answer: 'A page of invoice items.',
    rows: ({ db, scope, query }) => invoiceItemsQuery(db, scope, query),
    view: invoiceItemView,
  }),
  getRoute<InvoiceItemRow>({
    path: '/v1/invoice_items/{id}',
    operationId: 'getInvoiceItem',
    summary: 'Get an invoice item',
    tag: TAG,
    auth: { permission: 'billing:read' },
    ...itemTable,
    item: invoiceItemSchema,
    answer: 'The invoice item.',
    view: invoiceItemView,
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'DELETE',
    path: '/v1/invoice_items/{id}',
    operationId: 'deleteInvoiceItem',
    summary: 'Delete a pending invoice item',
    description: 'Only while pending: 409 `invoice_item_invoiced` once an invoice has taken it.',
    tag: TAG,
    auth: { permission: 'billing:write' },
    idempotent: true,
    params: { id: idPattern('invoiceItem') },
    responses: { 200: { description: 'The item as it was, `deleted: true`.', schema: invoiceItemSchema } },
    errors: ['invoice_item_invoiced'],
    async handler(input) {
      const item = await findIn<InvoiceItemRow>(input.db, itemTable, input.params.id, input.caller);
      return { status: 200, body: { ...invoiceItemView(await deleteInvoiceItem(transactional(input), item)), deleted: true } };
    },
  }),
];
