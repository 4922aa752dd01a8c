// Checkouts: POST /v1/checkouts (secret or publishable key) and GET /v1/checkouts/{id}.
import { DEFAULT_PLAN } from '../../config/plans';
import { amountInRange, orderFromLineItems, returnUrlProblem, summariseLineItems, type LineItemInput } from '../../domain/checkout-rules';
import { ApiError, type FieldError } from '../../domain/errors';
import { newId } from '../../crypto/ids';
import type { Locale } from '../../domain/locale';
import { normaliseSriLankanPhone } from '../../domain/phone';
import { checkoutUrl, checkoutView, loadCheckoutView, newCheckoutRows, openCheckout, type CheckoutRow } from '../../db/checkouts';
import { checkoutLifetimeStart } from '../../orchestration/starts';
import { getRoute } from '../platform/resource-routes';
import { defineRoute } from '../platform/route';
import { checkoutCreateSchema, checkoutSchema } from '../schemas/checkout';

export interface CheckoutCreateBody {
  amountCents?: number;
  description?: string;
  lineItems?: LineItemInput[];
  locale?: Locale;
  reference?: string;
  customer?: { name: string; email: string; phone?: string };
  successUrl?: string;
  cancelUrl?: string;
  saveCard?: boolean;
}

function invalid(message: string, fields: FieldError[]): ApiError {
  return new ApiError('VALIDATION_FAILED', message, { fields });
}

/**
 * The amount and description the payment takes, from `lineItems` or from `amountCents` (the schema
 * has made sure exactly one is sent, `amountCents` in range and with a description).
 */
function amountOf(body: CheckoutCreateBody) {
  if (body.lineItems !== undefined) {
    const order = orderFromLineItems(body.lineItems);
    if (!amountInRange(order.totalCents)) {
      throw new ApiError('amount', `The line items come to ${order.totalCents} cents; a payment must be 1000 to 100000000 cents.`, {
        fields: [{ path: 'lineItems', message: 'The total must be 1000 to 100000000 cents.' }],
      });
    }
    return { amountCents: order.totalCents, description: body.description ?? summariseLineItems(body.lineItems), order };
  }
  return { amountCents: body.amountCents!, description: body.description!, order: null };
}

export const checkoutRoutes = [
  defineRoute<CheckoutCreateBody, unknown>({
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
    async handler({ caller, body, db, idempotencyKey, clock, config, workflows, afterCommit }) {
      const { amountCents, description, order } = amountOf(body);
      // The schema's pattern admits only numbers the normaliser reads.
      const phone = body.customer?.phone === undefined ? null : normaliseSriLankanPhone(body.customer.phone)!;
      const fields: FieldError[] = [];
      for (const name of ['successUrl', 'cancelUrl'] as const) {
        const problem = body[name] === undefined ? null : returnUrlProblem(body[name]);
        if (problem !== null) fields.push({ path: name, message: problem });
      }
      if (fields.length > 0) throw invalid('The body is not valid.', fields);
      const { account } = caller;
      if (body.saveCard === true && caller.mode === 'live' && !account.savedCards) {
        throw new ApiError('saved_cards_off', 'Saved cards are off for this account: a live checkout cannot offer to keep the card.');
      }
      const now = clock.now();
      const plan = config.plans[account.plan] ?? config.plans[DEFAULT_PLAN];
      const checkoutId = newId('checkout', now.getTime());
      const locale = body.locale ?? 'en';
      const rows = newCheckoutRows(
        {
          id: newId('payment', now.getTime()),
          accountId: account.id,
          mode: caller.mode,
          amountCents,
          description,
          reference: body.reference ?? null,
          customer: body.customer ? { name: body.customer.name, email: body.customer.email, phone } : null,
          checkoutId,
          order,
          now,
        },
        {
          id: checkoutId,
          locale,
          url: checkoutUrl(config.publicBaseUrl, checkoutId, locale),
          success_url: body.successUrl ?? null,
          cancel_url: body.cancelUrl ?? null,
          save_card: body.saveCard ?? false,
          expires_at: new Date(now.getTime() + config.checkoutLifetimeMs),
        },
      );
      // The answer is recorded with the key in the write itself, so it is made first.
      const answer = checkoutView(rows.checkout, rows.payment);
      const json = JSON.stringify(answer);
      const opened = await openCheckout(db, rows, plan?.monthlyLimitCents ?? null, { key: idempotencyKey!, answer: { status: 201, json } });
      if (opened.limitReached) {
        throw new ApiError('monthly_limit_reached', `This payment would take the month past the ${account.plan} plan's limit of ${plan?.monthlyLimitCents} cents (${opened.usedCents} used).`);
      }
      const { checkout } = rows;
      afterCommit(async () => {
        await workflows.start(checkoutLifetimeStart(checkout));
      });
      return { status: 201, body: answer, json };
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
    view: (row, db) => loadCheckoutView(db, row),
  }),
];
