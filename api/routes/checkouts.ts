// Checkouts: POST /v1/checkouts (secret or publishable key) and GET /v1/checkouts/{id}.
import { findPayment } from '../../db/payments';
import type { CheckoutRow } from '../../db/checkouts';
import { createCheckout, type CheckoutInput } from '../../services/checkouts/create';
import { checkoutView } from '../../views/checkout';
import { getRoute } from '../platform/resource-routes';
import { defineRoute } from '../platform/route';
import { checkoutCreateSchema, checkoutSchema } from '../schemas/checkout';

export const checkoutRoutes = [
  defineRoute<CheckoutInput, unknown>({
    method: 'POST',
    path: '/v1/checkouts',
    operationId: 'createCheckout',
    summary: 'Create a checkout',
    description: 'Opens a hosted checkout for 30 minutes with its payment (`requires_payment_method`). Send the customer to `url`. The outcome arrives as `payment.succeeded` or `payment.failed`; an unpaid checkout expires (`checkout.expired`).',
    tag: 'Checkouts',
    auth: { permission: 'checkouts:create', kinds: ['secret', 'publishable'] },
    idempotent: true,
    // The hottest write: one statement, which also records the Idempotency-Key with the answer.
    transaction: 'statement',
    body: checkoutCreateSchema,
    responses: {
      201: {
        description: 'The new checkout, open.',
        schema: checkoutSchema,
        links: {
          getCheckout: { operationId: 'getCheckout', parameters: { id: '$response.body#/id' } },
          getPayment: { operationId: 'getPayment', parameters: { id: '$response.body#/payment/id' } },
        },
      },
    },
    errors: ['amount', 'saved_cards_off', 'monthly_limit_reached', 'merchant_not_live', 'merchant_unavailable'],
    async handler(input) {
      const created = await createCheckout(input, input.caller, input.body, input.idempotencyKey!, { secretKey: input.caller.kind === 'secret' });
      return { status: 201, body: created.view, json: created.json };
    },
  }),
  getRoute<CheckoutRow>({
    path: '/v1/checkouts/{id}',
    operationId: 'getCheckout',
    summary: 'Get a checkout',
    tag: 'Checkouts',
    auth: { permission: 'payments:read' },
    kind: 'checkout',
    table: 'checkouts',
    item: checkoutSchema,
    answer: 'The checkout, with its payment.',
    view: async (row, db) => checkoutView(row, await findPayment(db, row.payment_id)),
  }),
];
