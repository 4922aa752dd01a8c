// This month's use of the plan's monthly limit, per mode: payments that succeeded this month
// (refunds do not free room) plus those currently with the processor. Months start at midnight
// on the 1st, Sri Lankan time.
import type { Knex } from 'knex';
import { colomboMonth } from '../domain/time';
import type { Mode } from '../domain/api-keys';
import { sql } from './sql';

/**
 * The month's use as one `used` column, from $1 account, $2 mode, $3 and $4 the month's bounds:
 * two primary-key lookups of the running totals the payments' trigger keeps (migration 015), so it
 * costs the same on the month's first payment and its ten-thousandth.
 */
export const MONTHLY_USAGE_SQL = `select (
    coalesce((select cents from processing_usage where account_id = $1 and mode = $2), 0)
    + coalesce((select cents from monthly_succeeded where account_id = $1 and mode = $2 and month_start >= $3 and month_start < $4), 0)
  )::bigint as used`;

/** $1 to $4 of MONTHLY_USAGE_SQL. */
export function monthlyUsageParams(accountId: string, mode: Mode, now: Date): [string, Mode, Date, Date] {
  const month = colomboMonth(now);
  return [accountId, mode, month.start, month.end];
}

export async function monthlyUsageCents(db: Knex | Knex.Transaction, accountId: string, mode: Mode, now: Date): Promise<number> {
  const [row] = await sql<{ used: number }>(db, MONTHLY_USAGE_SQL, monthlyUsageParams(accountId, mode, now));
  return (row as { used: number }).used;
}

/**
 * The advisory lock under which a payment enters the month's count: one at a time per account and
 * mode, so two payments cannot both squeeze under the limit (Pay and the saved-card charge).
 */
export function monthlyRoomLockKey(accountId: string, mode: Mode): string {
  return `${accountId}:${mode}`;
}
