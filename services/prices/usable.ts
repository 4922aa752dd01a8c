// Whether a price can start or change a subscription: an active price of an active product, in
// the caller's mode (else 409 price_unavailable). The subscription services call this for every
// price a request names.
import type { PricedRow } from '../../db/prices';
import { ApiError } from '../../domain/errors';
import type { Mode } from '../../domain/api-keys';

export function priceUnavailable(price: PricedRow, mode: Mode): ApiError | null {
  if (price.mode !== mode) return new ApiError('price_unavailable', `The price ${price.id} is a ${price.mode} price: use a ${price.mode} key, or a ${mode} price.`);
  if (!price.active) return new ApiError('price_unavailable', `The price ${price.id} is archived: make a new price for new subscriptions.`);
  if (!price.product_active) return new ApiError('price_unavailable', `The product ${price.product_id} of the price ${price.id} is archived.`);
  return null;
}
