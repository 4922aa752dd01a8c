// Change a merchant account: its status (`active` is its live activation, whose first time is
// kept through later suspensions), its plan, and whether it may keep cards. `kasi merchant
// activate` and `kasi merchant set`.
import { ApiError } from '../../domain/errors';
import { updateAccount, type AccountChanges, type AccountRecord } from '../../db/accounts';
import type { ServiceContext } from '../context';
import { checkMerchantFields } from './fields';

export async function updateMerchant(ctx: ServiceContext, account: AccountRecord, changes: AccountChanges): Promise<AccountRecord> {
  checkMerchantFields(ctx, { plan: changes.plan });
  const updated = await updateAccount(ctx.db, account.id, changes, ctx.clock.now());
  if (!updated) throw new ApiError('NOT_FOUND', `No account with id ${account.id}.`);
  return updated;
}
