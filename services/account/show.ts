// The account as a key of one mode sees it: GET /v1/account, and the data of the account.limit.*
// events, which carry the same object.
import { findPendingUpgradeRequest } from '../../db/upgrade-requests';
import { accountInModeView } from '../../views/account';
import { withPendingUpgradeRequest } from '../../views/upgrade-request';
import type { AccountScope, ServiceContext } from '../context';
import { monthlyLimitUse } from './monthly-limit';

/** `usedCents`: the month's use when the caller has just counted it (see monthlyLimitUse). */
export async function accountInMode(ctx: ServiceContext, scope: AccountScope, usedCents?: number) {
  const use = await monthlyLimitUse(ctx, scope, usedCents);
  const pending = await findPendingUpgradeRequest(ctx.db, scope.account.id);
  return withPendingUpgradeRequest(accountInModeView(scope.account, scope.mode, use), pending);
}
