// The public Account object: as the CLI prints it, and as GET /v1/account shows it to a key of one
// mode (with that mode's use of the plan's monthly limit).
import type { AccountRecord } from '../db/accounts';
import { livePaymentsOpen } from '../domain/account-rules';
import type { Mode } from '../domain/api-keys';
import { timestamp } from '../domain/time';

export function accountView(account: AccountRecord) {
  return {
    object: 'account' as const,
    id: account.id,
    name: account.name,
    status: account.status,
    plan: account.plan,
    savedCards: account.savedCards,
    dunningEnd: account.dunningEnd,
    proration: account.proration,
    billingCycleAnchor: account.billingCycleAnchor,
    livePaymentsOpen: livePaymentsOpen(account),
    liveActivatedAt: timestamp(account.liveActivatedAt),
    createdAt: account.createdAt.toISOString(),
  };
}

/** This month's use of the plan's monthly limit in one mode (services/account/monthly-limit.ts). */
export interface MonthlyLimitUse {
  limitCents: number;
  usedCents: number;
  remainingCents: number;
  period: { start: Date; end: Date };
}

export function accountInModeView(account: AccountRecord, mode: Mode, use: MonthlyLimitUse) {
  return {
    ...accountView(account),
    mode,
    monthlyLimit: {
      limitCents: use.limitCents,
      usedCents: use.usedCents,
      remainingCents: use.remainingCents,
      periodStart: use.period.start.toISOString(),
      periodEnd: use.period.end.toISOString(),
    },
  };
}
