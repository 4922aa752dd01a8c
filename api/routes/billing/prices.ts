// Prices: POST /v1/prices, GET /v1/prices (`active` filter, products embedded),
// GET /v1/prices/{id}. Never edited; archived with `kasi price archive` (the dashboard later).
// See docs/reference/catalog.md.
import { findPricedRow, pricesQuery, type PricedRow, type PriceRow } from '../../../db/prices';
import { createPrice, type PriceInput } from '../../../services/prices/create';
import { priceView } from '../../../views/price';
import { type ListQuery } from '../../platform/pagination';
import { getRoute, listRoute } from '../../platform/resource-routes';
import { defineRoute } from '../../platform/route';
import { priceCreateSchema, priceListQuerySchema, priceSchema } from '../../schemas/catalog';

const TAG = 'Prices';

export const priceRoutes = [
  defineRoute<PriceInput, unknown>({
    method: 'POST',
    path: '/v1/prices',
    operationId: 'createPrice',
    summary: 'Create a price',
    description:
      'How much a product costs and how often: per unit, per package (`packageSize`, packages rounded up) or tiered (`graduated` or `volume`, 2 to 10 tiers with ascending `upTo`, the last open). Give an existing `productId`, or `product` to make one with the price. Prices are never edited: make a new one and archive the old.',
    tag: TAG,
    auth: { permission: 'billing:write' },
    idempotent: true,
    body: priceCreateSchema,
    responses: { 201: { description: 'The new price, active.', schema: priceSchema, links: { getPrice: { operationId: 'getPrice', parameters: { id: '$response.body#/id' } } } } },
    // 404 also without a reason: no such product.
    errors: ['price_invalid', 'meter_invalid', 'price_unavailable', 'mode_mismatch'],
    async handler(input) {
      return { status: 201, body: priceView(await createPrice(input, input.caller, input.body)) };
    },
  }),
  listRoute<PricedRow, ListQuery & { active?: boolean }>({
    path: '/v1/prices',
    operationId: 'listPrices',
    summary: 'List prices with their products, newest first',
    description: 'All prices, or only the active (`active=true`) or archived (`active=false`) ones; each with its product\'s id, name and description.',
    tag: TAG,
    auth: { permission: 'billing:read' },
    kind: 'price',
    query: priceListQuerySchema,
    item: priceSchema,
    answer: 'A page of prices.',
    rows: ({ db, scope, query }) => pricesQuery(db, scope, query.active),
    view: priceView,
  }),
  getRoute<PriceRow>({
    path: '/v1/prices/{id}',
    operationId: 'getPrice',
    summary: 'Get a price',
    tag: TAG,
    auth: { permission: 'billing:read' },
    kind: 'price',
    table: 'prices',
    item: priceSchema,
    answer: 'The price.',
    view: async (row, db) => priceView((await findPricedRow(db, row.id))!),
  }),
];
