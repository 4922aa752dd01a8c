// The monthly limit's notices as payments take the month's room: `account.limit.approaching` once
// the month's use reaches 80% of the plan's limit, `account.limit.reached` once it reaches the limit
// or a payment is refused for it. Each goes out once per account, mode and Sri Lankan month: its
// notice (db/limit-notices.ts) and its event are written in one transaction, and a second insert of
// the notice does nothing. Every way of taking a payment calls these: Pay on the hosted page
// (services/checkouts/pay.ts) and the saved-card charge.
import { ApiError } from '../../domain/errors';
import { limitNoticesDue, monthlyLimitReached, mostUsedForPayment, planOf } from '../../domain/plans';
import { colomboMonth } from '../../domain/time';
import { recordEvent } from '../../db/events';
import { insertLimitNotice, type LimitNoticeKind } from '../../db/limit-notices';
import { monthlyUsageCents } from '../../db/monthly-usage';
import type { AccountScope, ServiceContext, ServiceDeps, TransactionContext } from '../context';
import { inTransaction } from '../run';
import { accountInMode } from './show';

/**
 * Writes each notice of `kinds` for the month starting `periodStart` not written before, each with
 * its `account.limit.<kind>` event carrying the account as GET /v1/account shows it. How many it
 * wrote.
 */
export async function sendLimitNotices(
  ctx: TransactionContext,
  scope: AccountScope,
  periodStart: Date,
  kinds: readonly LimitNoticeKind[],
  usedCents?: number,
): Promise<number> {
  const now = ctx.clock.now();
  let data: Awaited<ReturnType<typeof accountInMode>> | undefined;
  let sent = 0;
  for (const kind of kinds) {
    if (!(await insertLimitNotice(ctx.db, { accountId: scope.account.id, mode: scope.mode, periodStart, kind }, now))) continue;
    data ??= await accountInMode(ctx, scope, usedCents);
    await recordEvent(ctx.db, { accountId: scope.account.id, mode: scope.mode, type: `account.limit.${kind}`, data, now });
    sent++;
  }
  return sent;
}

/**
 * In the transaction that takes a payment's room, under the per-account lock: `usedCents` is the
 * month's use counting that payment. For a caller whose check of the room is its own SQL (the
 * saved-card charge); Pay calls takeMonthlyRoom, which checks and then calls this.
 */
export async function noteLimitUsage(ctx: TransactionContext, scope: AccountScope, usedCents: number): Promise<void> {
  const kinds = limitNoticesDue(planOf(ctx.config.plans, scope.account.plan), usedCents);
  if (kinds.length > 0) await sendLimitNotices(ctx, scope, colomboMonth(ctx.clock.now()).start, kinds, usedCents);
}

/** `account.limit.reached` for a refused payment, in `ctx`'s transaction. */
function noteRefusalIn(ctx: TransactionContext, scope: AccountScope): Promise<number> {
  return sendLimitNotices(ctx, scope, colomboMonth(ctx.clock.now()).start, ['reached']);
}

/**
 * A payment was refused for the limit: `account.limit.reached`, in a transaction of its own on
 * `ctx.db` (the refused payment's transaction, if any, has rolled back or committed by then).
 */
export async function noteLimitRefusal(ctx: ServiceContext, scope: AccountScope): Promise<void> {
  await ctx.db.transaction((trx) => noteRefusalIn({ ...ctx, db: trx }, scope));
}

/** monthly_limit_reached, knowing whose month it was (so the refusal can be noted after its rollback). */
export class MonthlyLimitRefusal extends ApiError {
  constructor(
    readonly scope: AccountScope,
    refusal: ApiError,
  ) {
    super('monthly_limit_reached', refusal.message);
  }
}

/**
 * Takes the month's room for a payment of `amountCents`, under the per-account lock the caller's
 * transaction holds: refuses it with MonthlyLimitRefusal when it would take the month past the
 * plan's limit, else notes the use it brings the month to.
 */
export async function takeMonthlyRoom(ctx: TransactionContext, scope: AccountScope, amountCents: number): Promise<void> {
  const plan = planOf(ctx.config.plans, scope.account.plan);
  const usedCents = await monthlyUsageCents(ctx.db, scope.account.id, scope.mode, ctx.clock.now());
  if (usedCents > mostUsedForPayment(plan, amountCents)) throw new MonthlyLimitRefusal(scope, monthlyLimitReached(scope.account.plan, plan, usedCents));
  await noteLimitUsage(ctx, scope, usedCents + amountCents);
}

/**
 * For a caller's `.catch` around the transaction that called takeMonthlyRoom: once it has rolled
 * back, a refusal for the limit is noted in a transaction of its own; the error is thrown on.
 */
export function notingLimitRefusal(deps: ServiceDeps): (err: unknown) => Promise<never> {
  return async (err) => {
    if (err instanceof MonthlyLimitRefusal) {
      const { account, mode } = err.scope;
      // The refusal stands whatever becomes of its notice (a later refusal notes it again).
      await inTransaction(deps, (ctx) => noteRefusalIn(ctx, err.scope)).catch((noteErr: unknown) =>
        deps.log.error({ err: noteErr, accountId: account.id, mode }, 'account.limit.reached: the refusal was not noted'),
      );
    }
    throw err;
  };
}
