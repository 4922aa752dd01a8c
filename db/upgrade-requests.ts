// A merchant's requests for a bigger plan (migration 011): at most one pending per account (a
// partial unique index), decided once by an operator. The public object is views/upgrade-request.ts.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import { MONTHLY_USAGE_SQL, monthlyUsageParams } from './monthly-usage';
import { sql } from './sql';

type Db = Knex | Knex.Transaction;

export const UPGRADE_REQUEST_STATUSES = ['pending', 'approved', 'declined'] as const;
export type UpgradeRequestStatus = (typeof UPGRADE_REQUEST_STATUSES)[number];

export interface UpgradeRequestRow {
  id: string;
  account_id: string;
  plan: string;
  from_plan: string;
  status: UpgradeRequestStatus;
  message: string | null;
  decline_reason: string | null;
  created_at: Date;
  decided_at: Date | null;
}

// The month's use ($1 to $4 of MONTHLY_USAGE_SQL) and the pending request's columns (all null when
// there is none) in one round trip: GET /v1/account is among the most read calls.
const USAGE_AND_PENDING_SQL = `select (${MONTHLY_USAGE_SQL}) as month_used_cents, r.*
  from (select 1) one left join upgrade_requests r on r.account_id = $1 and r.status = 'pending'`;

/** This month's use of the limit in `mode` and the account's pending upgrade request, at once. */
export async function monthlyUsageAndPendingRequest(db: Db, accountId: string, mode: Mode, now: Date): Promise<{ usedCents: number; pending: UpgradeRequestRow | null }> {
  const [row] = await sql<UpgradeRequestRow & { month_used_cents: string | number }>(db, USAGE_AND_PENDING_SQL, monthlyUsageParams(accountId, mode, now));
  const { month_used_cents: used, ...pending } = row!;
  return { usedCents: Number(used), pending: pending.id === null ? null : pending };
}

/** Inserts the request unless the account has one pending already: then nothing, and false. */
export async function insertPendingUpgradeRequest(db: Db, row: UpgradeRequestRow): Promise<boolean> {
  const { rows } = (await db.raw(`? on conflict (account_id) where status = 'pending' do nothing returning id`, [db('upgrade_requests').insert(row)])) as { rows: unknown[] };
  return rows.length === 1;
}

export async function findPendingUpgradeRequest(db: Db, accountId: string): Promise<UpgradeRequestRow | null> {
  return ((await db<UpgradeRequestRow>('upgrade_requests').where({ account_id: accountId, status: 'pending' }).first()) as UpgradeRequestRow | undefined) ?? null;
}

export async function findUpgradeRequest(db: Db, id: string): Promise<UpgradeRequestRow | null> {
  return ((await db<UpgradeRequestRow>('upgrade_requests').where({ id }).first()) as UpgradeRequestRow | undefined) ?? null;
}

/** The account's requests, narrowed to a status (the API's list pages through them by id). */
export function upgradeRequestsOf(db: Db, accountId: string, status?: UpgradeRequestStatus): Knex.QueryBuilder {
  const rows = db<UpgradeRequestRow>('upgrade_requests').where({ account_id: accountId });
  if (status !== undefined) void rows.where({ status });
  return rows;
}

/** Every account's newest `limit` requests, narrowed to a status, with the account's name: the operator's list. */
export async function newestUpgradeRequests(
  db: Db,
  filter: { status?: UpgradeRequestStatus; limit: number },
): Promise<(UpgradeRequestRow & { account_name: string })[]> {
  const rows = db('upgrade_requests').join('accounts', 'accounts.id', 'upgrade_requests.account_id').select('upgrade_requests.*', 'accounts.name as account_name');
  if (filter.status !== undefined) void rows.where('upgrade_requests.status', filter.status);
  return (await rows.orderBy('upgrade_requests.id', 'desc').limit(filter.limit)) as (UpgradeRequestRow & { account_name: string })[];
}

/**
 * Decides a pending request (a conditional update from `pending`): the decided row, or null when
 * it was no longer pending.
 */
export async function decideUpgradeRequest(
  db: Db,
  id: string,
  decision: { status: 'approved' | 'declined'; declineReason: string | null; now: Date },
): Promise<UpgradeRequestRow | null> {
  const [row] = (await db('upgrade_requests')
    .where({ id, status: 'pending' })
    .update({ status: decision.status, decline_reason: decision.declineReason, decided_at: decision.now })
    .returning('*')) as UpgradeRequestRow[];
  return row ?? null;
}
