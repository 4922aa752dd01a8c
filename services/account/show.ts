// The account as a key of one mode sees it: GET /v1/account, and the data of the account.limit.*
// events, which carry the same object.
import { findPendingUpgradeRequest, monthlyUsageAndPendingRequest } from '../../db/upgrade-requests';
import { accountInModeView } from '../../views/account';
import { withPendingUpgradeRequest } from '../../views/upgrade-request';
import type { AccountScope, ServiceContext } from '../context';
import { monthlyLimitUse } from './monthly-limit';

/** `usedCents`: the month's use when the caller has just counted it (see monthlyLimitUse). */
export async function accountInMode(ctx: ServiceContext, scope: AccountScope, usedCents?: number) {
  // Uncounted (GET /v1/account, among the most read calls): the use and the request in one round trip.
  const { usedCents: used, pending } =
    usedCents === undefined
      ? await monthlyUsageAndPendingRequest(ctx.db, scope.account.id, scope.mode, ctx.clock.now())
      : { usedCents, pending: await findPendingUpgradeRequest(ctx.db, scope.account.id) };
  const use = await monthlyLimitUse(ctx, scope, used);
  return withPendingUpgradeRequest(accountInModeView(scope.account, scope.mode, use), pending);
}
