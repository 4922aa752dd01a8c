// The public Product object.
import type { ProductRow } from '../db/products';

export function productView(row: ProductRow) {
  return {
    object: 'product' as const,
    id: row.id,
    mode: row.mode,
    name: row.name,
    description: row.description,
    active: row.active,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
