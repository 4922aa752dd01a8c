// The monthly limit's notices (migration 011): one row per account, mode, Sri Lankan month and
// kind, written in the transaction that records its event, so no event is sent twice.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';

type Db = Knex | Knex.Transaction;

export const LIMIT_NOTICE_KINDS = ['approaching', 'reached', 'reset'] as const;
export type LimitNoticeKind = (typeof LIMIT_NOTICE_KINDS)[number];

export interface LimitNotice {
  accountId: string;
  mode: Mode;
  /** The month's start: midnight on its 1st, Sri Lankan time. */
  periodStart: Date;
  kind: LimitNoticeKind;
}

/** Records the notice: true when this insert made it, false when it had been made before. */
export async function insertLimitNotice(db: Db, notice: LimitNotice, now: Date): Promise<boolean> {
  const inserted = await db('limit_notices')
    .insert({ account_id: notice.accountId, mode: notice.mode, period_start: notice.periodStart, kind: notice.kind, created_at: now })
    .onConflict(['account_id', 'mode', 'period_start', 'kind'])
    .ignore()
    .returning('kind');
  return inserted.length === 1;
}

/**
 * Up to `limit` accounts and modes, after `after` in (account, mode) order, that were told of the
 * limit in the month starting `previousStart` (approaching or reached) and have had no reset
 * notice for the month starting `currentStart`.
 */
export async function dueForReset(
  db: Db,
  months: { previousStart: Date; currentStart: Date },
  after: { accountId: string; mode: Mode } | null,
  limit: number,
): Promise<{ account_id: string; mode: Mode }[]> {
  const rows = db('limit_notices as told')
    .distinct('told.account_id', 'told.mode')
    .where('told.period_start', months.previousStart)
    .whereIn('told.kind', ['approaching', 'reached'])
    .whereNotExists(function reset() {
      void this.select(1)
        .from('limit_notices as reset')
        .whereRaw('reset.account_id = told.account_id and reset.mode = told.mode')
        .where({ 'reset.period_start': months.currentStart, 'reset.kind': 'reset' });
    });
  if (after !== null) void rows.whereRaw('(told.account_id, told.mode) > (?, ?)', [after.accountId, after.mode]);
  return (await rows.orderBy([{ column: 'told.account_id' }, { column: 'told.mode' }]).limit(limit)) as { account_id: string; mode: Mode }[];
}
