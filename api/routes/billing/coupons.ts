// Coupons and tax rates: POST, GET list and one, DELETE (archives) for each of /v1/coupons and
// /v1/tax_rates. A subscription takes them as `couponId` and `taxRateIds`. See
// docs/reference/coupons-and-tax-rates.md.
import { idPattern } from '../../../domain/ids';
import { couponsQuery, type CouponRow } from '../../../db/coupons';
import { taxRatesQuery, type TaxRateRow } from '../../../db/tax-rates';
import { archiveCoupon } from '../../../services/coupons/archive';
import { createCoupon, type CouponInput } from '../../../services/coupons/create';
import { archiveTaxRate } from '../../../services/tax-rates/archive';
import { createTaxRate, type TaxRateInput } from '../../../services/tax-rates/create';
import { couponView } from '../../../views/coupon';
import { taxRateView } from '../../../views/tax-rate';
import { findIn, getRoute, listRoute, type OwnedObject } from '../../platform/resource-routes';
import { defineRoute, type RouteSpec } from '../../platform/route';
import { couponCreateSchema, couponListQuerySchema, couponSchema, taxRateCreateSchema, taxRateListQuerySchema, taxRateSchema } from '../../schemas/coupon';
import type { JsonSchema } from '../../schemas/json-schema';
import type { ServiceContext } from '../../../services/context';

const couponTable = { kind: 'coupon', table: 'coupons' } as const;
const taxRateTable = { kind: 'taxRate', table: 'tax_rates', noun: 'tax rate' } as const;

/** DELETE /v1/<resource>/{id}: the caller's object archived, answered as it then is. */
function archiveRoute<Row extends { mode: string }>(spec: { path: string; operationId: string; summary: string; description: string; tag: string; owned: OwnedObject; schema: JsonSchema; answer: string; archive: (ctx: ServiceContext, row: Row) => Promise<unknown> }): RouteSpec {
  return defineRoute<unknown, unknown, { id: string }>({
    method: 'DELETE',
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tag: spec.tag,
    auth: { permission: 'billing:write' },
    idempotent: true,
    params: { id: idPattern(spec.owned.kind) },
    responses: { 200: { description: spec.answer, schema: spec.schema } },
    async handler(input) {
      const row = await findIn<Row>(input.db, spec.owned, input.params.id, input.caller);
      return { status: 200, body: await spec.archive(input, row) };
    },
  });
}

const COUPONS = 'Coupons';
const TAX_RATES = 'Tax rates';

export const couponRoutes: RouteSpec[] = [
  defineRoute<CouponInput, unknown>({
    method: 'POST',
    path: '/v1/coupons',
    operationId: 'createCoupon',
    summary: 'Create a coupon',
    description:
      'Percent off (`percentOff`) or an amount off (`amountOffCents`), exactly one, for `once`, `repeating` (`durationInMonths`) or `forever`. Apply it with a subscription\'s `couponId` (on create or update) or an invoice\'s: each application counts in `timesRedeemed`, up to `maxRedemptions`, until `redeemBy`.',
    tag: COUPONS,
    auth: { permission: 'billing:write' },
    idempotent: true,
    body: couponCreateSchema,
    responses: { 201: { description: 'The new coupon, valid.', schema: couponSchema, links: { getCoupon: { operationId: 'getCoupon', parameters: { id: '$response.body#/id' } } } } },
    errors: ['billing_date_invalid'],
    async handler(input) {
      return { status: 201, body: couponView(await createCoupon(input, input.caller, input.body), input.clock.now()) };
    },
  }),
  listRoute<CouponRow>({
    path: '/v1/coupons',
    operationId: 'listCoupons',
    summary: 'List coupons, newest first',
    tag: COUPONS,
    auth: { permission: 'billing:read' },
    kind: 'coupon',
    query: couponListQuerySchema,
    item: couponSchema,
    answer: 'A page of coupons.',
    rows: ({ db, scope }) => couponsQuery(db, scope),
    view: couponView,
  }),
  getRoute<CouponRow>({
    path: '/v1/coupons/{id}',
    operationId: 'getCoupon',
    summary: 'Get a coupon',
    tag: COUPONS,
    auth: { permission: 'billing:read' },
    ...couponTable,
    item: couponSchema,
    answer: 'The coupon.',
    view: (row, _db, now) => couponView(row, now),
  }),
  archiveRoute<CouponRow>({
    path: '/v1/coupons/{id}',
    operationId: 'archiveCoupon',
    summary: 'Archive a coupon',
    description: 'The coupon is applied no more (`valid` false; applying it answers 409 `coupon_invalid`); the discounts it already gives go on. Archiving it again answers the same coupon.',
    tag: COUPONS,
    owned: couponTable,
    schema: couponSchema,
    answer: 'The coupon, `valid` false.',
    archive: async (ctx, row) => couponView(await archiveCoupon(ctx, row), ctx.clock.now()),
  }),
  defineRoute<TaxRateInput, unknown>({
    method: 'POST',
    path: '/v1/tax_rates',
    operationId: 'createTaxRate',
    summary: 'Create a tax rate',
    description: 'A percentage, `inclusive` (the prices contain it) or exclusive (added on top). Give it to subscriptions in `taxRateIds`: each of their invoices shows it in `taxes`.',
    tag: TAX_RATES,
    auth: { permission: 'billing:write' },
    idempotent: true,
    body: taxRateCreateSchema,
    responses: { 201: { description: 'The new tax rate, active.', schema: taxRateSchema, links: { getTaxRate: { operationId: 'getTaxRate', parameters: { id: '$response.body#/id' } } } } },
    async handler(input) {
      return { status: 201, body: taxRateView(await createTaxRate(input, input.caller, input.body)) };
    },
  }),
  listRoute<TaxRateRow>({
    path: '/v1/tax_rates',
    operationId: 'listTaxRates',
    summary: 'List tax rates, newest first',
    tag: TAX_RATES,
    auth: { permission: 'billing:read' },
    kind: 'taxRate',
    query: taxRateListQuerySchema,
    item: taxRateSchema,
    answer: 'A page of tax rates.',
    rows: ({ db, scope }) => taxRatesQuery(db, scope),
    view: taxRateView,
  }),
  getRoute<TaxRateRow>({
    path: '/v1/tax_rates/{id}',
    operationId: 'getTaxRate',
    summary: 'Get a tax rate',
    tag: TAX_RATES,
    auth: { permission: 'billing:read' },
    ...taxRateTable,
    item: taxRateSchema,
    answer: 'The tax rate.',
    view: taxRateView,
  }),
  archiveRoute<TaxRateRow>({
    path: '/v1/tax_rates/{id}',
    operationId: 'archiveTaxRate',
    summary: 'Archive a tax rate',
    description: 'The rate is given to subscriptions no more (`active` false; naming it answers 409 `tax_rate_invalid`); the subscriptions it taxes already go on being taxed by it. Archiving it again answers the same rate.',
    tag: TAX_RATES,
    owned: taxRateTable,
    schema: taxRateSchema,
    answer: 'The tax rate, `active` false.',
    archive: async (ctx, row) => taxRateView(await archiveTaxRate(ctx, row)),
  }),
];
