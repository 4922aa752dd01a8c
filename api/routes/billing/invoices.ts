// Invoices: POST /v1/invoices (a draft), GET /v1/invoices (customerId, subscriptionId, status),
// GET /v1/invoices/{id}, the actions POST /v1/invoices/{id}/finalize, /send, /pay, /void and
// /mark_uncollectible, and the previews GET /v1/invoices/upcoming and POST /v1/invoices/preview.
// See docs/reference/invoices.md.
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
import { invoiceCreateSchema, invoiceListQuerySchema, invoicePreviewSchema, invoiceSchema, upcomingInvoiceQuerySchema } from '../../schemas/invoice';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Processors } from '../../../processor';
import type { SubscriptionRow } from '../../../db/subscriptions';
import { payInvoice } from '../../../services/invoices/pay';
import { previewInvoice, upcomingInvoice, type InvoicePreviewInput } from '../../../services/invoices/upcoming';

const TAG = 'Invoices';
const invoiceTable = { kind: 'invoice', table: 'invoices' } as const;
const subscriptionTable = { kind: 'subscription', table: 'subscriptions' } as const;
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

export const invoiceRoutes = (processors: Processors, log: Logger): RouteSpec[] => [
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
    errors: ['mode_mismatch', 'coupon_invalid'],
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
  defineRoute<unknown, { subscriptionId: string }>({
    method: 'GET',
    path: '/v1/invoices/upcoming',
    operationId: 'getUpcomingInvoice',
    summary: 'Preview a subscription\'s next invoice',
    description:
      'The invoice the next renewal will make (a trialing subscription\'s: the first paid period, from the trial\'s end), with the proration lines of the changes waiting for it, computed by the code that bills it, so it equals that invoice cent for cent. Not stored: id `upcoming_<subscription id>`, status `draft`, number null. 404 for a subscription that will not renew (ended, paused, or to be canceled at or before its period\'s end).',
    tag: TAG,
    auth: { permission: 'billing:read' },
    query: upcomingInvoiceQuerySchema,
    responses: { 200: { description: 'The preview.', schema: invoiceSchema } },
    // No such subscription, or one that will not renew.
    errors: ['NOT_FOUND'],
    async handler(input) {
      const subscription = await findIn<SubscriptionRow>(input.db, subscriptionTable, input.query.subscriptionId, input.caller);
      return { status: 200, body: invoiceView(await upcomingInvoice(input, subscription)) };
    },
  }),
  defineRoute<InvoicePreviewInput, unknown>({
    method: 'POST',
    path: '/v1/invoices/preview',
    operationId: 'previewInvoice',
    summary: 'Preview an invoice for a subscription (a read)',
    description:
      'A read: no Idempotency-Key, nothing stored. Without changes, the next renewal\'s invoice, as `GET /v1/invoices/upcoming` answers it. With a change of items (`items`, `priceId`, `quantity`, as on update) it is computed by the code the update bills with: with `always_invoice` or a change of interval, the invoice the change makes at once with its proration lines; otherwise the next renewal with the change applied and its proration lines. `prorationDate` (default now) must fall inside the current period and not after now: send the same to the update and the invoice equals the preview to the cent.',
    tag: TAG,
    auth: { permission: 'billing:read' },
    // A read sent as a POST: no transaction, so its reads are batched with other previews'.
    transaction: 'steps',
    body: invoicePreviewSchema,
    responses: { 200: { description: 'The preview.', schema: invoiceSchema } },
    errors: ['billing_date_invalid', 'items_invalid', 'subscription_ended', 'subscription_change_refused', 'price_unavailable', 'NOT_FOUND'],
    async handler(input) {
      const subscription = await findIn<SubscriptionRow>(input.db, subscriptionTable, input.body.subscriptionId, input.caller);
      return { status: 200, body: invoiceView(await previewInvoice(input, subscription, input.body, input.caller.account.proration)) };
    },
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
  defineRoute<unknown, unknown, { id: string }>({
    method: 'POST',
    path: '/v1/invoices/{id}/pay',
    operationId: 'payInvoice',
    summary: 'Charge an invoice to the card on file now',
    description:
      'Charges the open invoice to the card on file (the subscription\'s `cardId`, else the customer\'s default card) as its next attempt. Answers the invoice `paid`, or still `open` with the attempt\'s failure (`attemptCount`, `lastFailure`; `invoice.payment_failed`); a charge the bank has not answered yet leaves it `open` and its outcome arrives as `invoice.paid` or `invoice.payment_failed`. 409 `invoice_payment_pending` while a charge of it is with the processor, `no_card_on_file` when there is no card to charge, `invoice_not_open` unless it is open.',
    tag: TAG,
    auth: { permission: 'billing:write' },
    idempotent: true,
    // The payment is written, the processor asked and the outcome applied in steps of their own.
    transaction: 'steps',
    params: { id: idPattern('invoice') },
    responses: { 200: { description: 'The invoice after the attempt.', schema: invoiceSchema } },
    errors: ['invoice_not_open', 'invoice_payment_pending', 'no_card_on_file'],
    async handler(input) {
      const invoice = await findIn<InvoiceRow>(input.db, invoiceTable, input.params.id, input.caller);
      return { status: 200, body: invoiceView(await payInvoice({ ...input, db: input.db as Knex, log, processors }, invoice.id)) };
    },
  }),
  actionRoute('void', {
    operationId: 'voidInvoice',
    summary: 'Void an invoice',
    description: 'A draft or open invoice is voided for good (`invoice.voided`): nothing more is collected on it. 409 `invoice_payment_pending` while a charge of it is with the processor (void it once the charge is declined; one that succeeds pays it).',
    answer: 'The invoice, `void`.',
    errors: ['invoice_not_open', 'invoice_payment_pending'],
  }),
  actionRoute('mark_uncollectible', {
    operationId: 'markInvoiceUncollectible',
    summary: 'Mark an invoice uncollectible',
    description: 'An open invoice the merchant no longer expects to be paid (`invoice.marked_uncollectible`). 409 `invoice_payment_pending` while a charge of it is with the processor.',
    answer: 'The invoice, `uncollectible`.',
    errors: ['invoice_not_open', 'invoice_payment_pending'],
  }),
];
