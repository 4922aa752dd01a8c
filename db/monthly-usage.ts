// This month's use of the plan's monthly limit, per mode: payments that succeeded this month
// (refunds do not free room) plus those currently with the processor. Months start at midnight
// on the 1st, Sri Lankan time.
import type { Knex } from 'knex';
import { colomboMonth } from '../domain/time';
import type { Mode } from '../domain/api-keys';

export async function monthlyUsageCents(db: Knex | Knex.Transaction, accountId: string, mode: Mode, now: Date): Promise<number> {
  const month = colomboMonth(now);
  const row = await db('payments')
    .where({ account_id: accountId, mode })
    .whereRaw(`(status = 'processing' or (succeeded_at >= ? and succeeded_at < ?))`, [month.start, month.end])
    .first(db.raw('coalesce(sum(amount_cents), 0)::bigint as used'));
  return (row as { used: number }).used;
}
