// This month's use of the plan's monthly limit, per mode: payments that succeeded this month
// (refunds do not free room) plus those currently with the processor. Months start at midnight
// on the 1st, Sri Lankan time.
import type { Knex } from 'knex';
import { colomboMonth } from '../domain/time';
import type { Mode } from '../domain/api-keys';
import { sql } from './sql';

export async function monthlyUsageCents(db: Knex | Knex.Transaction, accountId: string, mode: Mode, now: Date): Promise<number> {
  const month = colomboMonth(now);
  const [row] = await sql<{ used: number }>(
    db,
    // Two index range scans (the partial index of processing payments, and succeeded_at), not
    // one OR that would read every payment of the account.
    `select coalesce(sum(amount_cents), 0)::bigint as used from (
       select amount_cents from payments where account_id = $1 and mode = $2 and status = 'processing'
       union all
       select amount_cents from payments where account_id = $1 and mode = $2 and status <> 'processing'
         and succeeded_at >= $3 and succeeded_at < $4
     ) counted`,
    [accountId, mode, month.start, month.end],
  );
  return (row as { used: number }).used;
}
