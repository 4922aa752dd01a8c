// Create a customer: one per email (case-insensitive) per account and mode. An email that is
// already a customer gives that customer, with the details sent filled in.
import { ApiError } from '../../domain/errors';
import { normaliseSriLankanMobile } from '../../domain/phone';
import { upsertCustomer, type CustomerDetails, type CustomerRow } from '../../db/customers';
import type { AccountScope, ServiceContext } from '../context';

export async function createCustomer(ctx: ServiceContext, scope: AccountScope, details: CustomerDetails): Promise<{ customer: CustomerRow; created: boolean }> {
  const phone = details.phone === undefined ? undefined : normaliseSriLankanMobile(details.phone);
  if (phone === null) {
    throw new ApiError('VALIDATION_FAILED', 'The body is not valid.', { fields: [{ path: 'phone', message: 'Must be a Sri Lankan mobile number.' }] });
  }
  return upsertCustomer(ctx.db, { accountId: scope.account.id, mode: scope.mode }, { ...details, phone }, ctx.clock.now());
}
