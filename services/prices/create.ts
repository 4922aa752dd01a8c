// Create a price: the terms checked by domain/pricing.ts (price_invalid), a metered price's meter
// (an active meter of this mode, else meter_invalid), and its product, an active
// product of the caller's in this mode, or a new one made with it in the same transaction.
import { newId } from '../../crypto/ids';
import { insertPrice, pricedRow, type PricedRow, type PriceRow } from '../../db/prices';
import type { ProductRow } from '../../db/products';
import type { BillingInterval } from '../../domain/billing-periods';
import { ApiError, type FieldError } from '../../domain/errors';
import { priceTerms, type PriceTermsInput } from '../../domain/pricing';
import type { AccountScope, ServiceContext } from '../context';
import { findOwned } from '../owned';
import { createProduct, type ProductInput } from '../products/create';
import { activeMeter } from '../meters/named';

export interface PriceInput extends PriceTermsInput {
  productId?: string;
  product?: ProductInput;
  interval: BillingInterval;
  intervalCount?: number;
  nickname?: string;
  meterId?: string;
}

const invalid = (reason: 'price_invalid' | 'meter_invalid', message: string, fields: FieldError[]) => new ApiError(reason, message, { fields });

/** A metered price's meter: an active meter of the caller's in this mode (else meter_invalid); none for a licensed price. */
async function meterOf(ctx: ServiceContext, scope: AccountScope, input: PriceInput, metered: boolean): Promise<string | null> {
  if (!metered && input.meterId !== undefined) throw invalid('price_invalid', 'Only a metered price takes a meter.', [{ path: 'meterId', message: 'Not taken by a licensed price.' }]);
  if (!metered) return null;
  if (input.meterId === undefined) throw invalid('meter_invalid', 'A metered price needs the id of an active meter of this mode.', [{ path: 'meterId', message: 'Required for a metered price.' }]);
  return (await activeMeter(ctx, scope, input.meterId)).id;
}

/** The price's product: made with it (`product`), or the caller's, in this mode and active (`productId`; the schema sends one of them). */
async function productFor(ctx: ServiceContext, scope: AccountScope, input: PriceInput): Promise<ProductRow> {
  if (input.product !== undefined) return createProduct(ctx, scope, input.product);
  const product = await findOwned<ProductRow>(ctx.db, 'products', input.productId!, scope, 'product');
  if (!product.active) throw new ApiError('price_unavailable', `The product ${product.id} is archived: bring it back (POST /v1/products/${product.id} with active true) to give it prices.`);
  return product;
}

export async function createPrice(ctx: ServiceContext, scope: AccountScope, input: PriceInput): Promise<PricedRow> {
  const made = priceTerms(input);
  if ('problems' in made) throw invalid('price_invalid', `The price cannot price anything as sent: ${made.problems.map((p) => `${p.path}: ${p.message}`).join(' ')}`, made.problems);
  const { terms } = made;
  const meterId = await meterOf(ctx, scope, input, terms.usageType === 'metered');
  const product = await productFor(ctx, scope, input);
  const now = ctx.clock.now();
  const row: PriceRow = {
    id: newId('price', now.getTime()),
    account_id: scope.account.id,
    mode: scope.mode,
    product_id: product.id,
    unit_amount_cents: terms.unitAmountCents,
    interval: input.interval,
    interval_count: input.intervalCount ?? 1,
    nickname: input.nickname ?? null,
    active: true,
    billing_scheme: terms.billingScheme,
    tiers_mode: terms.tiersMode,
    tiers: terms.tiers,
    package_size: terms.packageSize,
    usage_type: terms.usageType,
    meter_id: meterId,
    created_at: now,
    archived_at: null,
  };
  await insertPrice(ctx.db, row);
  return pricedRow(row, product);
}
