// This month's use of the account's plan limit in one mode (Sri Lankan calendar months): what
// GET /v1/account shows. The limit itself is enforced where payments are taken (domain/plans.ts).
import { planOf } from '../../domain/plans';
import { colomboMonth } from '../../domain/time';
import { monthlyUsageCents } from '../../db/monthly-usage';
import type { MonthlyLimitUse } from '../../views/account';
import type { AccountScope, ServiceContext } from '../context';

/** `counted`: the month's use when the caller has just counted it (with a payment it is taking, not yet written). */
export async function monthlyLimitUse(ctx: ServiceContext, scope: AccountScope, counted?: number): Promise<MonthlyLimitUse> {
  const now = ctx.clock.now();
  const limitCents = planOf(ctx.config.plans, scope.account.plan).monthlyLimitCents;
  const usedCents = counted ?? (await monthlyUsageCents(ctx.db, scope.account.id, scope.mode, now));
  return { limitCents, usedCents, remainingCents: Math.max(0, limitCents - usedCents), period: colomboMonth(now) };
}
