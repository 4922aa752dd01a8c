// `account.limit.reset` at the start of a Sri Lankan month, sent the way Stripe sends the end of a
// condition it told of: only to each account and mode that was told of the limit (approaching or
// reached) the month before, once (its notice, db/limit-notices.ts). Run by the monthly-limit reset
// workflow's activity at midnight on the 1st, and again whenever that workflow starts (at boot), so
// a reset missed while the service was down goes out late rather than never.
import { findAccount } from '../../db/accounts';
import { dueForReset } from '../../db/limit-notices';
import type { Mode } from '../../domain/api-keys';
import { colomboMonth } from '../../domain/time';
import type { ServiceDeps } from '../context';
import { inTransaction } from '../run';
import { sendLimitNotices } from './note-limit-usage';

const BATCH = 200;

/** How many resets it sent for the month starting at `monthStart` (midnight on its 1st). */
export async function sendLimitResets(deps: ServiceDeps, monthStart: Date): Promise<number> {
  const currentStart = colomboMonth(monthStart).start;
  const months = { previousStart: colomboMonth(new Date(currentStart.getTime() - 1)).start, currentStart };
  let sent = 0;
  let after: { accountId: string; mode: Mode } | null = null;
  for (;;) {
    const due = await dueForReset(deps.db, months, after, BATCH);
    for (const { account_id: accountId, mode } of due) {
      sent += await inTransaction(deps, async (ctx) => {
        const account = (await findAccount(ctx.db, accountId))!;
        return sendLimitNotices(ctx, { account, mode }, currentStart, ['reset']);
      });
    }
    if (due.length < BATCH) return sent;
    const last = due[due.length - 1]!;
    after = { accountId: last.account_id, mode: last.mode };
  }
}
