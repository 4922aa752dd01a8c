// Update a product: its name and description (its prices show them from then on), and `active`:
// false archives it (its prices can no longer start subscriptions, and it takes no new prices),
// true brings it back. Only the fields sent change; a request that changes nothing leaves
// `updatedAt` as it was.
import { updateProduct as writeProduct, type ProductChanges, type ProductRow } from '../../db/products';
import type { ServiceContext } from '../context';

export async function updateProduct(ctx: ServiceContext, product: ProductRow, changes: ProductChanges): Promise<ProductRow> {
  const changed = (Object.keys(changes) as (keyof ProductChanges)[]).filter((field) => changes[field] !== product[field]);
  if (changed.length === 0) return product;
  return writeProduct(ctx.db, product.id, { ...changes, updated_at: ctx.clock.now() });
}
