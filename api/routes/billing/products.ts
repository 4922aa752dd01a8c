// Products: POST /v1/products, GET /v1/products (`active` filter), GET /v1/products/{id},
// POST /v1/products/{id} (name, description, archive or bring back). See docs/reference/catalog.md.
import { idPattern } from '../../../domain/ids';
import { productsQuery, type ProductChanges, type ProductRow } from '../../../db/products';
import { createProduct, type ProductInput } from '../../../services/products/create';
import { updateProduct } from '../../../services/products/update';
import { productView } from '../../../views/product';
import { type ListQuery } from '../../platform/pagination';
import { findIn, getRoute, listRoute } from '../../platform/resource-routes';
import { defineRoute } from '../../platform/route';
import { productCreateSchema, productListQuerySchema, productSchema, productUpdateSchema } from '../../schemas/catalog';

const TAG = 'Products';
const productTable = { kind: 'product', table: 'products' } as const;
const productLinks = { getProduct: { operationId: 'getProduct', parameters: { id: '$response.body#/id' } } };

export const productRoutes = [
  defineRoute<ProductInput, unknown>({
    method: 'POST',
    path: '/v1/products',
    operationId: 'createProduct',
    summary: 'Create a product',
    description: 'What you sell, named once; its prices (`POST /v1/prices`) say how much and how often.',
    tag: TAG,
    auth: { permission: 'billing:write' },
    idempotent: true,
    body: productCreateSchema,
    responses: { 201: { description: 'The new product, active.', schema: productSchema, links: productLinks } },
    async handler(input) {
      return { status: 201, body: productView(await createProduct(input, input.caller, input.body)) };
    },
  }),
  listRoute<ProductRow, ListQuery & { active?: boolean }>({
    path: '/v1/products',
    operationId: 'listProducts',
    summary: 'List products, newest first',
    description: 'All products, or only the active (`active=true`) or archived (`active=false`) ones.',
    tag: TAG,
    auth: { permission: 'billing:read' },
    kind: 'product',
    query: productListQuerySchema,
    item: productSchema,
    answer: 'A page of products.',
    rows: ({ db, scope, query }) => productsQuery(db, scope, query.active),
    view: productView,
  }),
  getRoute<ProductRow>({
    path: '/v1/products/{id}',
    operationId: 'getProduct',
    summary: 'Get a product',
    tag: TAG,
    auth: { permission: 'billing:read' },
    ...productTable,
    item: productSchema,
    answer: 'The product.',
    view: productView,
  }),
  defineRoute<ProductChanges, unknown, { id: string }>({
    method: 'POST',
    path: '/v1/products/{id}',
    operationId: 'updateProduct',
    summary: 'Update or archive a product',
    description:
      'Only the fields sent change. `active: false` archives the product: its prices start no new subscriptions (409 `price_unavailable`) and it takes no new prices; subscriptions already on them renew as before. `active: true` brings it back.',
    tag: TAG,
    auth: { permission: 'billing:write' },
    idempotent: true,
    params: { id: idPattern('product') },
    body: productUpdateSchema,
    responses: { 200: { description: 'The product as changed.', schema: productSchema } },
    async handler(input) {
      const product = await findIn<ProductRow>(input.db, productTable, input.params.id, input.caller);
      return { status: 200, body: productView(await updateProduct(input, product, input.body)) };
    },
  }),
];
