// Create a product: what a merchant sells, named once, priced by its prices.
import { newId } from '../../crypto/ids';
import { insertProduct, type ProductRow } from '../../db/products';
import type { AccountScope, ServiceContext } from '../context';

export interface ProductInput {
  name: string;
  description?: string;
}

export async function createProduct(ctx: ServiceContext, scope: AccountScope, input: ProductInput): Promise<ProductRow> {
  const now = ctx.clock.now();
  const row: ProductRow = {
    id: newId('product', now.getTime()),
    account_id: scope.account.id,
    mode: scope.mode,
    name: input.name,
    description: input.description ?? null,
    active: true,
    created_at: now,
    updated_at: now,
  };
  await insertProduct(ctx.db, row);
  return row;
}
