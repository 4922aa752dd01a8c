// The public UpgradeRequest object: a merchant's request for a bigger plan, and its decision. It is
// about the account, the same in both modes, so it has no `mode` (see docs/reference/account.md).
import type { UpgradeRequestRow } from '../db/upgrade-requests';
import { timestamp } from '../domain/time';

export function upgradeRequestView(row: UpgradeRequestRow) {
  return {
    object: 'upgrade_request' as const,
    id: row.id,
    plan: row.plan,
    fromPlan: row.from_plan,
    status: row.status,
    message: row.message,
    declineReason: row.decline_reason,
    createdAt: row.created_at.toISOString(),
    decidedAt: timestamp(row.decided_at),
  };
}

/** The account object of GET /v1/account (views/account.ts) with the request waiting for a decision. */
export function withPendingUpgradeRequest<Account extends object>(account: Account, pending: UpgradeRequestRow | null) {
  return { ...account, pendingUpgradeRequest: pending === null ? null : upgradeRequestView(pending) };
}
