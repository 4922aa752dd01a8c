// Detach a feature from a product: customers whose subscriptions grant it through this product
// alone may use it no more (their summaries refreshed in this transaction). A feature the product
// does not have answers 404.
import { customersOfProduct, deleteProductFeature, findProductFeature, type FeatureRow, type ProductFeatureRow } from '../../db/entitlements';
import type { ProductRow } from '../../db/products';
import { ApiError } from '../../domain/errors';
import type { TransactionContext } from '../context';
import { refreshEntitlementSummaries } from './refresh-summary';

export async function detachFeature(ctx: TransactionContext, product: ProductRow, feature: FeatureRow): Promise<ProductFeatureRow> {
  const attached = await findProductFeature(ctx.db, product.id, feature.id);
  if (attached === undefined) throw new ApiError('NOT_FOUND', `The feature ${feature.id} is not attached to the product ${product.id}.`);
  await deleteProductFeature(ctx.db, attached.id);
  await refreshEntitlementSummaries(ctx, await customersOfProduct(ctx.db, product.id), null);
  return attached;
}
