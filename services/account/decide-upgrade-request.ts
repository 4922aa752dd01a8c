// An operator decides a pending upgrade request (`kasi upgrade-requests approve|decline`): approving
// moves the account to the requested plan in the same transaction; declining keeps its plan and
// tells the merchant why, if the operator says.
import { ApiError } from '../../domain/errors';
import { updateAccount, type AccountRecord } from '../../db/accounts';
import { decideUpgradeRequest, findUpgradeRequest, type UpgradeRequestRow } from '../../db/upgrade-requests';
import type { TransactionContext } from '../context';

/** What an operator may write to the merchant when declining. */
export const DECLINE_REASON_MAX_LENGTH = 500;

/** The request, still pending, decided as `status` (a conditional update: a decision is made once). */
async function decide(ctx: TransactionContext, id: string, status: 'approved' | 'declined', declineReason: string | null): Promise<UpgradeRequestRow> {
  const request = await findUpgradeRequest(ctx.db, id);
  if (request === null) throw new ApiError('NOT_FOUND', `No upgrade request with id ${id}.`);
  const decided = await decideUpgradeRequest(ctx.db, id, { status, declineReason, now: ctx.clock.now() });
  if (decided === null) throw new ApiError('CONFLICT', `Upgrade request ${id} was ${request.status} already.`);
  return decided;
}

export async function approveUpgradeRequest(ctx: TransactionContext, id: string): Promise<{ request: UpgradeRequestRow; account: AccountRecord }> {
  const request = await decide(ctx, id, 'approved', null);
  if (!(request.plan in ctx.config.plans)) {
    throw new ApiError('VALIDATION_FAILED', `The plan ${request.plan} is no longer in the catalogue: decline the request instead.`);
  }
  const account = (await updateAccount(ctx.db, request.account_id, { plan: request.plan }, ctx.clock.now()))!;
  return { request, account };
}

export async function declineUpgradeRequest(ctx: TransactionContext, id: string, reason: string | null): Promise<UpgradeRequestRow> {
  if (reason !== null && (reason.trim() === '' || [...reason].length > DECLINE_REASON_MAX_LENGTH)) {
    throw new ApiError('VALIDATION_FAILED', 'The reason is not valid.', { fields: [{ path: 'reason', message: `must be 1 to ${DECLINE_REASON_MAX_LENGTH} characters` }] });
  }
  return decide(ctx, id, 'declined', reason);
}
