// Attach a feature to a product: every customer with a trialing, active or past-due subscription
// on the product's prices may use it from now on (their summaries refreshed in this transaction).
// The feature is named in the body, so one that is not an active feature of this account and mode
// answers 400 feature_invalid (the product, in the path, answers 404 or mode_mismatch). Attaching
// a feature the product has already changes nothing and answers that attachment.
import { newId } from '../../crypto/ids';
import { customersOfProduct, findFeatureIn, findProductFeature, insertProductFeature, type ProductFeatureRow } from '../../db/entitlements';
import type { ProductRow } from '../../db/products';
import { ApiError } from '../../domain/errors';
import type { AccountScope, TransactionContext } from '../context';
import { refreshEntitlementSummaries } from './refresh-summary';

export async function attachFeature(ctx: TransactionContext, scope: AccountScope, product: ProductRow, featureId: string): Promise<{ attached: boolean; productFeature: ProductFeatureRow }> {
  const feature = await findFeatureIn(ctx.db, { accountId: scope.account.id, mode: scope.mode }, featureId);
  if (feature === undefined || !feature.active) {
    const message = feature === undefined ? `No feature of ${scope.mode} mode has the id ${featureId}.` : `The feature ${featureId} is archived: bring it back (active true) first.`;
    throw new ApiError('feature_invalid', message, { fields: [{ path: 'featureId', message: `Not an active feature of this account in ${scope.mode} mode.` }] });
  }
  const now = ctx.clock.now();
  const row = { id: newId('productFeature', now.getTime()), product_id: product.id, feature_id: feature.id, created_at: now };
  const attached = await insertProductFeature(ctx.db, row);
  if (attached) await refreshEntitlementSummaries(ctx, await customersOfProduct(ctx.db, product.id), null);
  return { attached, productFeature: attached ? { ...row, lookup_key: feature.lookup_key } : (await findProductFeature(ctx.db, product.id, feature.id))! };
}
