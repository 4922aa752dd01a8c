// Entitlements: POST and GET /v1/entitlements/features, GET and POST (update, archive)
// /v1/entitlements/features/{id}; a
// product's features (POST, GET /v1/products/{id}/features, DELETE .../features/{featureId}); and
// GET /v1/entitlements/active_entitlements?customerId=. See docs/reference/entitlements.md.
import { activeEntitlements, featuresQuery, productFeaturesQuery, type FeatureChanges, type FeatureRow, type ProductFeatureRow } from '../../../db/entitlements';
import type { CustomerRow } from '../../../db/customers';
import type { ProductRow } from '../../../db/products';
import { idPattern } from '../../../domain/ids';
import { attachFeature } from '../../../services/entitlements/attach-feature';
import { createFeature, type FeatureInput } from '../../../services/entitlements/create-feature';
import { detachFeature } from '../../../services/entitlements/detach-feature';
import { updateFeature } from '../../../services/entitlements/update-feature';
import { transactional } from '../../../services/run';
import { activeEntitlementView, featureView, productFeatureView } from '../../../views/entitlement';
import { listSchema, type ListQuery } from '../../platform/pagination';
import { findIn, getRoute, listRoute } from '../../platform/resource-routes';
import { defineRoute } from '../../platform/route';
import {
  activeEntitlementSchema,
  activeEntitlementsQuerySchema,
  featureCreateSchema,
  featureListQuerySchema,
  featureSchema,
  featureUpdateSchema,
  productFeatureCreateSchema,
  productFeatureListQuerySchema,
  productFeatureSchema,
} from '../../schemas/entitlement';

const TAG = 'Entitlements';
const read = { permission: 'billing:read' } as const;
const write = { permission: 'billing:write' } as const;
const featureTable = { kind: 'entitlementFeature', table: 'entitlement_features', noun: 'feature' } as const;
const productTable = { kind: 'product', table: 'products' } as const;
const customerTable = { kind: 'customer', table: 'customers' } as const;
const featureLinks = {
  getEntitlementFeature: { operationId: 'getEntitlementFeature', parameters: { id: '$response.body#/id' } },
  updateEntitlementFeature: { operationId: 'updateEntitlementFeature', parameters: { id: '$response.body#/id' } },
};
const productFeatureLinks = {
  listProductFeatures: { operationId: 'listProductFeatures', parameters: { id: '$response.body#/productId' } },
  detachProductFeature: { operationId: 'detachProductFeature', parameters: { id: '$response.body#/productId', featureId: '$response.body#/featureId' } },
};

export const entitlementRoutes = [
  defineRoute<FeatureInput, unknown>({
    method: 'POST',
    path: '/v1/entitlements/features',
    operationId: 'createEntitlementFeature',
    summary: 'Create a feature',
    description: 'Something your app lets customers use, named by the `lookupKey` your app asks about. Attach it to products (`POST /v1/products/{id}/features`): their subscribers are entitled to it.',
    tag: TAG,
    auth: write,
    idempotent: true,
    body: featureCreateSchema,
    responses: { 201: { description: 'The new feature.', schema: featureSchema, links: featureLinks } },
    errors: ['feature_exists'],
    async handler(input) {
      return { status: 201, body: featureView(await createFeature(input, input.caller, input.body)) };
    },
  }),
  listRoute<FeatureRow, ListQuery & { active?: boolean }>({
    path: '/v1/entitlements/features',
    operationId: 'listEntitlementFeatures',
    summary: 'List features, newest first',
    description: 'All features, or only the active (`active=true`) or archived (`active=false`) ones.',
    tag: TAG,
    auth: read,
    kind: 'entitlementFeature',
    query: featureListQuerySchema,
    item: featureSchema,
    answer: 'A page of features.',
    rows: ({ db, scope, query }) => featuresQuery(db, scope, query.active),
    view: featureView,
  }),
  getRoute<FeatureRow>({
    path: '/v1/entitlements/features/{id}',
    operationId: 'getEntitlementFeature',
    summary: 'Get a feature',
    tag: TAG,
    auth: read,
    ...featureTable,
    item: featureSchema,
    answer: 'The feature.',
    view: featureView,
  }),
  defineRoute<FeatureChanges, unknown, { id: string }>({
    method: 'POST',
    path: '/v1/entitlements/features/{id}',
    operationId: 'updateEntitlementFeature',
    summary: 'Rename, archive or bring back a feature',
    description:
      'Only the fields sent change. `active: false` archives the feature: customers are entitled to it no more (`entitlements.active_entitlement_summary.updated` for each whose set changed), it can be attached to no product (400 `feature_invalid`), and its lookup key may name a new feature. `active: true` brings it back, unless its lookup key names another active feature by then (409 `feature_exists`).',
    tag: TAG,
    auth: write,
    idempotent: true,
    params: { id: idPattern('entitlementFeature') },
    body: featureUpdateSchema,
    responses: { 200: { description: 'The feature as changed.', schema: featureSchema } },
    errors: ['feature_exists', 'mode_mismatch'],
    async handler(input) {
      const feature = await findIn<FeatureRow>(input.db, featureTable, input.params.id, input.caller);
      return { status: 200, body: featureView(await updateFeature(transactional(input), feature, input.body)) };
    },
  }),
  defineRoute<{ featureId: string }, unknown, { id: string }>({
    method: 'POST',
    path: '/v1/products/{id}/features',
    operationId: 'attachProductFeature',
    summary: 'Attach a feature to a product',
    description:
      'Customers with a `trialing`, `active` or `past_due` subscription to one of the product\'s prices are entitled to the feature from now on (`entitlements.active_entitlement_summary.updated` for each whose set changed). A feature the product has already: 200 with that attachment.',
    tag: TAG,
    auth: write,
    idempotent: true,
    params: { id: idPattern('product') },
    body: productFeatureCreateSchema,
    responses: {
      201: { description: 'The feature attached.', schema: productFeatureSchema, links: productFeatureLinks },
      200: { description: 'The product had the feature already: that attachment.', schema: productFeatureSchema, links: productFeatureLinks },
    },
    errors: ['feature_invalid', 'mode_mismatch'],
    async handler(input) {
      const product = await findIn<ProductRow>(input.db, productTable, input.params.id, input.caller);
      const { attached, productFeature } = await attachFeature(transactional(input), input.caller, product, input.body.featureId);
      return { status: attached ? 201 : 200, body: productFeatureView(productFeature) };
    },
  }),
  listRoute<ProductFeatureRow>({
    path: '/v1/products/{id}/features',
    operationId: 'listProductFeatures',
    summary: 'List a product\'s features, newest first',
    tag: TAG,
    auth: read,
    within: productTable,
    kind: 'productFeature',
    query: productFeatureListQuerySchema,
    item: productFeatureSchema,
    answer: 'A page of the product\'s features.',
    rows: ({ db, params }) => productFeaturesQuery(db, params.id),
    view: productFeatureView,
  }),
  defineRoute<unknown, unknown, { id: string; featureId: string }>({
    method: 'DELETE',
    path: '/v1/products/{id}/features/{featureId}',
    operationId: 'detachProductFeature',
    summary: 'Detach a feature from a product',
    description: 'Customers entitled to the feature through this product alone are entitled to it no more (`entitlements.active_entitlement_summary.updated`). 404 when the product does not have the feature.',
    tag: TAG,
    auth: write,
    idempotent: true,
    params: { id: idPattern('product'), featureId: idPattern('entitlementFeature') },
    responses: { 200: { description: 'The attachment removed, `deleted: true`.', schema: productFeatureSchema } },
    errors: ['mode_mismatch'],
    async handler(input) {
      const product = await findIn<ProductRow>(input.db, productTable, input.params.id, input.caller);
      const feature = await findIn<FeatureRow>(input.db, featureTable, input.params.featureId, input.caller);
      return { status: 200, body: { ...productFeatureView(await detachFeature(transactional(input), product, feature)), deleted: true } };
    },
  }),
  defineRoute<unknown, { customerId: string }>({
    method: 'GET',
    path: '/v1/entitlements/active_entitlements',
    operationId: 'listActiveEntitlements',
    summary: 'What a customer may use now',
    description:
      'The features of the products of the customer\'s `trialing`, `active` and `past_due` subscriptions, each once, by `lookupKey`: all of them in one page. A customer of another account is unknown (404); one of the other mode answers `mode_mismatch`.',
    tag: TAG,
    auth: read,
    query: activeEntitlementsQuerySchema,
    responses: { 200: { description: 'The customer\'s active entitlements, by lookup key.', schema: listSchema(activeEntitlementSchema) } },
    errors: ['mode_mismatch'],
    async handler({ db, caller, query }) {
      const customer = await findIn<CustomerRow>(db, customerTable, query.customerId, caller);
      const data = (await activeEntitlements(db, customer.id)).map(activeEntitlementView);
      return { status: 200, body: { object: 'list', data, hasMore: false, nextCursor: null } };
    },
  }),
];
