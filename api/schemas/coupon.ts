// Coupons and tax rates: the create bodies, the list queries and the objects.
import { COUPON_DURATIONS, COUPON_LIMITS } from '../../domain/coupons';
import { idPattern } from '../../domain/ids';
import { listQueryProperties } from '../platform/pagination';
import { countSchema, modeSchema, named, nullable, object, safeIntegerSchema, timestampSchema } from './json-schema';

export const couponCreateSchema = object(
  {
    name: { type: 'string', minLength: 1, maxLength: COUPON_LIMITS.nameMax, description: 'What the customer sees on invoices and emails beside the discount.' },
    percentOff: { type: 'number', minimum: 0.01, maximum: 100, multipleOf: 0.01, description: 'Percent off the discountable lines, above 0 and at most 100, two decimals at most (exclusive with `amountOffCents`).' },
    amountOffCents: { type: 'integer', minimum: 1, maximum: COUPON_LIMITS.maxAmountOffCents, description: 'Cents off each discounted invoice, at most its discountable lines (exclusive with `percentOff`).' },
    duration: {
      type: 'string',
      enum: [...COUPON_DURATIONS],
      description: '`once`: the next invoice with something to discount; `repeating`: the invoices of periods that start within `durationInMonths` months of when it is applied; `forever`: every invoice.',
    },
    durationInMonths: { type: 'integer', minimum: 1, maximum: COUPON_LIMITS.maxDurationInMonths, description: 'For `repeating` only (and required there).' },
    maxRedemptions: { type: 'integer', minimum: 1, maximum: COUPON_LIMITS.maxRedemptions, description: 'How many times it may be applied in all (a subscription, or an invoice, each once).' },
    redeemBy: { type: 'string', format: 'date-time', description: 'After this time (wall time) it is applied no more: after now and within two years, else 400 `billing_date_invalid`.' },
  },
  ['duration'],
  {
    examples: [{ name: '20% off for 3 months', percentOff: 20, duration: 'repeating', durationInMonths: 3 }],
    allOf: [
      { dependentSchemas: { percentOff: { properties: { amountOffCents: false } } }, if: { required: ['amountOffCents'] }, else: { required: ['percentOff'] } },
      { if: { properties: { duration: { const: 'repeating' } } }, then: { required: ['durationInMonths'] }, else: { properties: { durationInMonths: false } } },
    ],
  },
);

export const couponListQuerySchema = object(listQueryProperties('coupon'));

export const couponSchema = named('Coupon', {
  type: 'object',
  required: ['object', 'id', 'mode', 'name', 'percentOff', 'amountOffCents', 'duration', 'durationInMonths', 'maxRedemptions', 'timesRedeemed', 'redeemBy', 'valid', 'createdAt'],
  properties: {
    object: { const: 'coupon' },
    id: { type: 'string', pattern: idPattern('coupon') },
    mode: modeSchema,
    name: nullable({ type: 'string' }),
    percentOff: nullable({ type: 'number' }),
    amountOffCents: nullable(safeIntegerSchema),
    duration: { type: 'string', enum: [...COUPON_DURATIONS] },
    durationInMonths: nullable(countSchema),
    maxRedemptions: nullable(countSchema),
    timesRedeemed: { ...countSchema, description: 'How many times it was applied.' },
    redeemBy: nullable(timestampSchema),
    valid: { type: 'boolean', description: 'False once archived, used up (`timesRedeemed` reached `maxRedemptions`) or past `redeemBy`.' },
    createdAt: timestampSchema,
  },
});

export const taxRateCreateSchema = object(
  {
    displayName: { type: 'string', minLength: 1, maxLength: 50, description: 'What invoices and emails call the tax: `VAT`.' },
    // Above 0, at least 0.0001: what multipleOf's tolerance (api/platform/validation.ts) would let through is nearer 0.
    percentage: { type: 'number', minimum: 0, maximum: 100, multipleOf: 0.0001, not: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 0.0001 }, description: '0 to 100, four decimals at most.' },
    inclusive: { type: 'boolean', description: '`true`: the prices contain the tax; `false`: it is added on top.' },
    description: { type: 'string', maxLength: 200 },
  },
  ['displayName', 'percentage', 'inclusive'],
  { examples: [{ displayName: 'VAT', percentage: 18, inclusive: false, description: 'Sri Lanka VAT' }] },
);

export const taxRateListQuerySchema = object(listQueryProperties('taxRate'));

export const taxRateSchema = named('TaxRate', {
  type: 'object',
  required: ['object', 'id', 'mode', 'displayName', 'percentage', 'inclusive', 'description', 'active', 'createdAt'],
  properties: {
    object: { const: 'tax_rate' },
    id: { type: 'string', pattern: idPattern('taxRate') },
    mode: modeSchema,
    displayName: { type: 'string' },
    percentage: { type: 'number' },
    inclusive: { type: 'boolean' },
    description: nullable({ type: 'string' }),
    active: { type: 'boolean' },
    createdAt: timestampSchema,
  },
});
