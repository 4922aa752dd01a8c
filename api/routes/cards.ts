// Saved cards: GET /v1/cards (one list of the newest 200), GET /v1/cards/{id}, DELETE
// /v1/cards/{id}, POST /v1/cards/{id}/charge. Cards are kept by the checkout's settlement
// (services/cards/keep.ts); see docs/reference/cards.md.
import { idPattern } from '../../domain/ids';
import type { SavedCardRow } from '../../db/saved-cards';
import type { Processors } from '../../processor';
import { chargeSavedCard, type ChargeInput } from '../../services/cards/charge';
import { deleteSavedCard } from '../../services/cards/delete';
import { listSavedCards } from '../../services/cards/list';
import { paymentView } from '../../views/payment';
import { savedCardView } from '../../views/saved-card';
import { getRoute, findIn } from '../platform/resource-routes';
import { defineRoute } from '../platform/route';
import { paymentSchema } from '../schemas/payment';
import { cardChargeSchema, savedCardListQuerySchema, savedCardListSchema, savedCardSchema } from '../schemas/saved-card';

const TAG = 'Saved cards';
const cardTable = { kind: 'savedCard', table: 'saved_cards', noun: 'saved card' } as const;

export function cardRoutes(processors: Processors) {
  return [
    defineRoute<unknown, { customerEmail?: string }>({
      method: 'GET',
      path: '/v1/cards',
      operationId: 'listSavedCards',
      summary: 'List saved cards: the newest 200',
      description:
        'One list of the newest 200 cards not deleted, newest first, of one customer email when `customerEmail` is given. There are no further pages: `hasMore` is always false and `nextCursor` null. `limit` and `cursor` are taken, as on every list, and do not change the answer.',
      tag: TAG,
      auth: { permission: 'cards:read' },
      query: savedCardListQuerySchema,
      responses: { 200: { description: 'The newest 200 cards not deleted.', schema: savedCardListSchema } },
      async handler(input) {
        const rows = await listSavedCards(input, input.caller, input.query.customerEmail);
        return { status: 200, body: { object: 'list', data: rows.map(savedCardView), hasMore: false, nextCursor: null } };
      },
    }),
    getRoute<SavedCardRow>({
      path: '/v1/cards/{id}',
      operationId: 'getSavedCard',
      summary: 'Get a saved card',
      description: 'Deleted cards included (`active` false).',
      tag: TAG,
      auth: { permission: 'cards:read' },
      ...cardTable,
      item: savedCardSchema,
      answer: 'The card.',
      view: savedCardView,
    }),
    defineRoute<unknown, unknown, { id: string }>({
      method: 'DELETE',
      path: '/v1/cards/{id}',
      operationId: 'deleteSavedCard',
      summary: 'Delete a saved card',
      description: 'The card is retired (`active` false, `retiredAt` set) and its token deleted at the processor: it can never be charged again. Deleting it again answers the same card.',
      tag: TAG,
      auth: { permission: 'cards:charge' },
      params: { id: idPattern('savedCard') },
      // One statement (the card retired), then the processor, with no transaction held.
      transaction: 'statement',
      responses: { 200: { description: 'The card, `active` false.', schema: savedCardSchema } },
      async handler(input) {
        const card = await findIn<SavedCardRow>(input.db, cardTable, input.params.id, input.caller);
        return { status: 200, body: savedCardView(await deleteSavedCard(input, processors, card)) };
      },
    }),
    defineRoute<ChargeInput, unknown, { id: string }>({
      method: 'POST',
      path: '/v1/cards/{id}/charge',
      operationId: 'chargeSavedCard',
      summary: 'Charge a saved card',
      description:
        'A charge without the customer present. The payment (`savedCardId` set, `checkoutId` null) is usually `processing`, its outcome arriving as `payment.succeeded` or `payment.failed`; a charge the processor refuses at once is answered `failed`. Use one Idempotency-Key per billing period.',
      tag: TAG,
      auth: { permission: 'cards:charge' },
      idempotent: true,
      params: { id: idPattern('savedCard') },
      // The service runs its own steps (services/cards/charge.ts): the payment and the key's answer
      // in one statement under the account's lock, then the processor with no transaction held.
      transaction: 'statement',
      body: cardChargeSchema,
      responses: {
        201: {
          description: 'The payment: `processing`, or `failed` when the processor refused the charge at once.',
          schema: paymentSchema,
          links: { getPayment: { operationId: 'getPayment', parameters: { id: '$response.body#/id' } } },
        },
      },
      errors: ['amount', 'card_not_reusable', 'monthly_limit_reached'],
      async handler(input) {
        const card = await findIn<SavedCardRow>(input.db, cardTable, input.params.id, input.caller);
        const { payment, json } = await chargeSavedCard(input, processors, input.caller, card, input.body, input.idempotencyKey!);
        return { status: 201, body: paymentView(payment), json };
      },
    }),
  ];
}
