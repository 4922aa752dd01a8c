// A merchant asks for a bigger plan (POST /v1/account/upgrade_requests): one of the catalogue's
// plans with a higher monthly limit than the account's, with a message for the operator. One
// request waits at a time; an operator approves or declines it (decide-upgrade-request.ts).
import { newId } from '../../crypto/ids';
import { ApiError } from '../../domain/errors';
import { planOf } from '../../domain/plans';
import { insertPendingUpgradeRequest, type UpgradeRequestRow } from '../../db/upgrade-requests';
import type { AccountScope, ServiceContext } from '../context';

export interface UpgradeRequestInput {
  plan: string;
  message?: string;
}

/** The catalogue's plans with a higher monthly limit than `current`'s, smallest first. */
export function plansAbove(plans: ServiceContext['config']['plans'], current: string): string[] {
  const limit = planOf(plans, current).monthlyLimitCents;
  return Object.entries(plans)
    .filter(([, plan]) => plan.monthlyLimitCents > limit)
    .sort(([, a], [, b]) => a.monthlyLimitCents - b.monthlyLimitCents)
    .map(([name]) => name);
}

export async function requestUpgrade(ctx: ServiceContext, scope: AccountScope, input: UpgradeRequestInput): Promise<UpgradeRequestRow> {
  const { account } = scope;
  const above = plansAbove(ctx.config.plans, account.plan);
  if (!above.includes(input.plan)) {
    const message = above.length > 0 ? `must be a plan above ${account.plan}: one of ${above.join(', ')}` : `no plan is above ${account.plan}`;
    throw new ApiError('VALIDATION_FAILED', 'The upgrade request is not valid.', { fields: [{ path: 'plan', message }] });
  }
  const now = ctx.clock.now();
  const row: UpgradeRequestRow = {
    id: newId('upgradeRequest', now.getTime()),
    account_id: account.id,
    plan: input.plan,
    from_plan: account.plan,
    status: 'pending',
    message: input.message ?? null,
    decline_reason: null,
    created_at: now,
    decided_at: null,
  };
  if (!(await insertPendingUpgradeRequest(ctx.db, row))) {
    throw new ApiError('upgrade_request_pending', 'This account already has an upgrade request waiting for a decision (see GET /v1/account/upgrade_requests).');
  }
  return row;
}
