// Payment links: POST /v1/payment_links, GET /v1/payment_links (the newest 200),
// DELETE /v1/payment_links/{id} (turns a link off). The payers' page is api/pages/payment-link.ts.
import { idPattern } from '../../domain/ids';
import type { PaymentLinkRow } from '../../db/payment-links';
import { createPaymentLink, type PaymentLinkInput } from '../../services/payment-links/create';
import { deactivatePaymentLink } from '../../services/payment-links/deactivate';
import { listPaymentLinks } from '../../services/payment-links/list';
import { paymentLinkView } from '../../views/payment-link';
import { findIn } from '../platform/resource-routes';
import { defineRoute } from '../platform/route';
import { object } from '../schemas/json-schema';
import { paymentLinkCreateSchema, paymentLinkListSchema, paymentLinkSchema } from '../schemas/payment-link';

const TAG = 'Payment links';
const linkTable = { kind: 'paymentLink', table: 'payment_links' } as const;

export const paymentLinkRoutes = [
  defineRoute<PaymentLinkInput, unknown>({
    method: 'POST',
    path: '/v1/payment_links',
    operationId: 'createPaymentLink',
    summary: 'Create a payment link',
    description:
      'A link many payers can pay: a fixed amount with a description, or line items (the same rules as a checkout\'s). Share `url`; each payer gets a checkout and payment of their own, with `paymentLinkId` set, and the outcome of each arrives as `payment.succeeded` or `payment.failed`.',
    tag: TAG,
    // Making a link is making checkouts ahead of time: the same permission, secret keys only.
    auth: { permission: 'checkouts:create' },
    idempotent: true,
    body: paymentLinkCreateSchema,
    responses: {
      201: {
        description: 'The new link, active.',
        schema: paymentLinkSchema,
        links: { deactivatePaymentLink: { operationId: 'deactivatePaymentLink', parameters: { id: '$response.body#/id' } } },
      },
    },
    errors: ['amount', 'saved_cards_off'],
    async handler(input) {
      return { status: 201, body: paymentLinkView(await createPaymentLink(input, input.caller, input.body)) };
    },
  }),
  defineRoute<unknown, unknown>({
    method: 'GET',
    path: '/v1/payment_links',
    operationId: 'listPaymentLinks',
    summary: 'List payment links: the newest 200',
    description: 'One list of the newest 200 links, newest first, each with how many payments it took (`paymentCount`). There are no further pages: `hasMore` is always false.',
    tag: TAG,
    auth: { permission: 'payments:read' },
    query: object({}),
    responses: { 200: { description: 'The newest 200 links.', schema: paymentLinkListSchema } },
    async handler(input) {
      const rows = await listPaymentLinks(input, input.caller);
      return { status: 200, body: { object: 'list', data: rows.map(paymentLinkView), hasMore: false, nextCursor: null } };
    },
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'DELETE',
    path: '/v1/payment_links/{id}',
    operationId: 'deactivatePaymentLink',
    summary: 'Turn a payment link off',
    description: 'Its page answers `link_inactive` from now on; checkouts its payers already opened stay payable until they expire. Turning it off again answers the same link.',
    tag: TAG,
    auth: { permission: 'checkouts:create' },
    params: { id: idPattern('paymentLink') },
    responses: { 200: { description: 'The link, `active` false.', schema: paymentLinkSchema } },
    async handler(input) {
      const link = await findIn<PaymentLinkRow>(input.db, linkTable, input.params.id, input.caller);
      return { status: 200, body: paymentLinkView(await deactivatePaymentLink(input, link)) };
    },
  }),
];
