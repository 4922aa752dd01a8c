// Entitlements: features, the features of a product, a customer's active entitlements.
import { LOOKUP_KEY_PATTERN } from '../../domain/entitlements';
import { idPattern } from '../../domain/ids';
import { listQueryProperties } from '../platform/pagination';
import { modeSchema, named, object, timestampSchema } from './json-schema';

const lookupKey = { type: 'string', pattern: LOOKUP_KEY_PATTERN };

export const featureCreateSchema = object(
  {
    name: { type: 'string', minLength: 1, maxLength: 80, description: 'What the feature is called, for people.' },
    lookupKey: { ...lookupKey, description: '1 to 80 of `A-Z a-z 0-9 _ . -`: what your app asks for. One active feature per lookup key in each mode (else 409 `feature_exists`).' },
  },
  ['name', 'lookupKey'],
  { examples: [{ name: 'Priority support', lookupKey: 'priority-support' }] },
);

export const featureUpdateSchema = object(
  {
    name: { type: 'string', minLength: 1, maxLength: 80 },
    active: { type: 'boolean', description: '`false` archives the feature: it entitles no one and is attached to no new product, and its lookup key may name a new feature. `true` brings it back.' },
  },
  [],
  { examples: [{ active: false }] },
);

export const featureListQuerySchema = object({
  ...listQueryProperties('entitlementFeature'),
  active: { type: 'boolean', description: '`true`: only active ones; `false`: only archived ones; omitted: all.' },
});

export const featureSchema = named('EntitlementFeature', {
  type: 'object',
  required: ['object', 'id', 'mode', 'name', 'lookupKey', 'active', 'createdAt'],
  properties: {
    object: { const: 'entitlement_feature' },
    id: { type: 'string', pattern: idPattern('entitlementFeature') },
    mode: modeSchema,
    name: { type: 'string' },
    lookupKey: { type: 'string' },
    active: { type: 'boolean' },
    createdAt: timestampSchema,
  },
});

export const productFeatureCreateSchema = object(
  { featureId: { type: 'string', maxLength: 64, description: 'An active feature of this mode (else 400 `feature_invalid`).' } },
  ['featureId'],
  { examples: [{ featureId: 'feat_0mhbq2k4c7b9x1d3f5h7j9l2' }] },
);

export const productFeatureListQuerySchema = object(listQueryProperties('productFeature'));

export const productFeatureSchema = named('ProductFeature', {
  type: 'object',
  required: ['object', 'id', 'productId', 'featureId', 'lookupKey'],
  properties: {
    object: { const: 'product_feature' },
    id: { type: 'string', pattern: idPattern('productFeature') },
    productId: { type: 'string', pattern: idPattern('product') },
    featureId: { type: 'string', pattern: idPattern('entitlementFeature') },
    lookupKey: { type: 'string' },
    deleted: { const: true, description: 'Only in the answer to DELETE.' },
  },
});

export const activeEntitlementsQuerySchema = object({ customerId: { type: 'string', pattern: idPattern('customer'), description: 'The customer asked about.' } }, ['customerId']);

export const activeEntitlementSchema = named('ActiveEntitlement', {
  type: 'object',
  required: ['object', 'featureId', 'lookupKey'],
  properties: {
    object: { const: 'active_entitlement' },
    featureId: { type: 'string', pattern: idPattern('entitlementFeature') },
    lookupKey: { type: 'string' },
  },
});
