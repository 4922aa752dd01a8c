// Create a customer: one per email (case-insensitive) per account and mode. An email that is
// already a customer gives that customer, with the details sent filled in. A new customer may live
// on a test clock of the account (`testClockId`; test mode, not deleted), made in the clock's time.
import { ApiError } from '../../domain/errors';
import { normaliseSriLankanMobile } from '../../domain/phone';
import { upsertCustomer, type CustomerDetails, type CustomerRow } from '../../db/customers';
import type { TestClockRow } from '../../db/test-clocks';
import type { AccountScope, ServiceContext } from '../context';
import { findOwned } from '../owned';

export async function createCustomer(ctx: ServiceContext, scope: AccountScope, details: CustomerDetails): Promise<{ customer: CustomerRow; created: boolean }> {
  const phone = details.phone === undefined ? undefined : normaliseSriLankanMobile(details.phone);
  if (phone === null) {
    throw new ApiError('VALIDATION_FAILED', 'The body is not valid.', { fields: [{ path: 'phone', message: 'Must be a Sri Lankan mobile number.' }] });
  }
  let now = ctx.clock.now();
  if (details.testClockId !== undefined) {
    const clock = await findOwned<TestClockRow>(ctx.db, 'test_clocks', details.testClockId, scope, 'test clock');
    if (clock.deleted_at !== null) throw new ApiError('NOT_FOUND', `No test clock with id ${clock.id}: it was deleted.`);
    now = clock.frozen_time;
  }
  return upsertCustomer(ctx.db, { accountId: scope.account.id, mode: scope.mode }, { ...details, phone }, now);
}
