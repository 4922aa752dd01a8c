// Products and prices: request bodies, list queries and the public objects.
import { BILLING_INTERVALS } from '../../domain/billing-periods';
import { idPattern } from '../../domain/ids';
import { BILLING_SCHEMES, PRICE_LIMITS, TIERS_MODES, USAGE_TYPES } from '../../domain/pricing';
import { listQueryProperties } from '../platform/pagination';
import { countSchema, modeSchema, named, nullable, object, safeIntegerSchema, timestampSchema } from './json-schema';

const productName = { type: 'string', minLength: 1, maxLength: 120 };
const productDescription = { type: 'string', maxLength: 500 };
const activeFilter = { type: 'boolean', description: '`true`: only active ones; `false`: only archived ones; omitted: all.' };
const cents = { type: 'integer', minimum: 0, maximum: PRICE_LIMITS.maxAmountCents };

export const productCreateSchema = object({ name: productName, description: productDescription }, ['name'], {
  examples: [{ name: 'Pro plan', description: 'Everything in Basic, and priority support' }],
});

export const productUpdateSchema = object(
  {
    name: productName,
    description: nullable(productDescription),
    active: { type: 'boolean', description: '`false` archives the product: its prices start no new subscriptions and it takes no new prices. `true` brings it back.' },
  },
  [],
  { examples: [{ active: false }] },
);

export const productListQuerySchema = object({ ...listQueryProperties('product'), active: activeFilter });

export const productSchema = named('Product', {
  type: 'object',
  required: ['object', 'id', 'mode', 'name', 'description', 'active', 'createdAt', 'updatedAt'],
  properties: {
    object: { const: 'product' },
    id: { type: 'string', pattern: idPattern('product') },
    mode: modeSchema,
    name: { type: 'string' },
    description: nullable({ type: 'string' }),
    active: { type: 'boolean' },
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  },
});

const tierSchema = object(
  {
    upTo: { ...nullable({ type: 'integer', minimum: 1, maximum: PRICE_LIMITS.maxTierUpTo }), description: `The last quantity of the tier, 1 to ${PRICE_LIMITS.maxTierUpTo}; null for the last, open tier.` },
    unitAmountCents: cents,
    flatAmountCents: { ...cents, default: 0 },
  },
  ['upTo', 'unitAmountCents'],
);

export const priceCreateSchema = object(
  {
    productId: { type: 'string', pattern: idPattern('product'), description: 'An active product of yours; or send `product` to make one.' },
    product: object({ name: productName, description: productDescription }, ['name']),
    unitAmountCents: { ...cents, description: 'Per unit, or per package. A licensed per-unit price is at least 1000 cents; omit for tiered prices.' },
    interval: { type: 'string', enum: [...BILLING_INTERVALS] },
    intervalCount: { type: 'integer', minimum: 1, maximum: PRICE_LIMITS.maxIntervalCount, default: 1 },
    nickname: { type: 'string', maxLength: 80 },
    billingScheme: {
      type: 'string',
      enum: [...BILLING_SCHEMES],
      default: 'per_unit',
      description: '`per_unit` takes `unitAmountCents`; `package` takes `unitAmountCents` (per package) and `packageSize`; `tiered` takes `tiersMode` and `tiers` and no `unitAmountCents`. Anything else answers `price_invalid`.',
    },
    tiersMode: { type: 'string', enum: [...TIERS_MODES] },
    tiers: { type: 'array', items: tierSchema, minItems: PRICE_LIMITS.minTiers, maxItems: PRICE_LIMITS.maxTiers, 'x-reason': 'price_invalid' },
    packageSize: { type: 'integer', minimum: PRICE_LIMITS.minPackageSize, maximum: PRICE_LIMITS.maxPackageSize },
    usageType: { type: 'string', enum: [...USAGE_TYPES], default: 'licensed', description: '`licensed` is billed in advance; `metered` in arrears, from its meter.' },
    meterId: { type: 'string', maxLength: 64, description: 'With `metered`: an active meter of this mode.' },
  },
  ['interval'],
  {
    // `productId` or `product`, never both.
    dependentSchemas: { productId: { properties: { product: false } } },
    if: { required: ['product'] },
    else: { required: ['productId'] },
    examples: [
      { product: { name: 'Pro plan' }, unitAmountCents: 150000, interval: 'month' },
      {
        productId: 'prod_0mw8a3k2x9q1c7v5b4n6m2z8',
        interval: 'month',
        billingScheme: 'tiered',
        tiersMode: 'graduated',
        tiers: [
          { upTo: 5, unitAmountCents: 100000 },
          { upTo: null, unitAmountCents: 80000 },
        ],
      },
    ],
  },
);

export const priceListQuerySchema = object({ ...listQueryProperties('price'), active: activeFilter });

export const priceSchema = named('Price', {
  type: 'object',
  required: [
    'object', 'id', 'mode', 'product', 'unitAmountCents', 'currency', 'interval', 'intervalCount', 'nickname', 'active',
    'billingScheme', 'tiersMode', 'tiers', 'packageSize', 'usageType', 'meterId', 'createdAt',
  ],
  properties: {
    object: { const: 'price' },
    id: { type: 'string', pattern: idPattern('price') },
    mode: modeSchema,
    product: object({ id: { type: 'string', pattern: idPattern('product') }, name: { type: 'string' }, description: nullable({ type: 'string' }) }, ['id', 'name', 'description']),
    unitAmountCents: { ...safeIntegerSchema, description: '0 for tiered prices.' },
    currency: { const: 'LKR' },
    interval: { type: 'string', enum: [...BILLING_INTERVALS] },
    intervalCount: countSchema,
    nickname: nullable({ type: 'string' }),
    active: { type: 'boolean', description: 'false: archived.' },
    billingScheme: { type: 'string', enum: [...BILLING_SCHEMES] },
    tiersMode: nullable({ type: 'string', enum: [...TIERS_MODES] }),
    tiers: nullable({
      type: 'array',
      items: object({ upTo: nullable(safeIntegerSchema), unitAmountCents: safeIntegerSchema, flatAmountCents: safeIntegerSchema }, ['upTo', 'unitAmountCents', 'flatAmountCents']),
    }),
    packageSize: nullable(countSchema),
    usageType: { type: 'string', enum: [...USAGE_TYPES] },
    meterId: nullable({ type: 'string' }),
    createdAt: timestampSchema,
  },
});
