// Coupons (migration 028): never edited; archived, and counted each time one is applied.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { CouponDuration } from '../domain/coupons';
import { sql } from './sql';

type Db = Knex | Knex.Transaction;

export interface CouponRow {
  id: string;
  account_id: string;
  mode: Mode;
  name: string | null;
  /** numeric(5,2): a string from PostgreSQL. */
  percent_off: string | number | null;
  amount_off_cents: string | number | null;
  duration: CouponDuration;
  duration_in_months: number | null;
  max_redemptions: number | null;
  times_redeemed: number;
  redeem_by: Date | null;
  archived_at: Date | null;
  created_at: Date;
}

export async function insertCoupon(db: Db, row: CouponRow): Promise<void> {
  await db('coupons').insert(row);
}

export function couponsQuery(db: Db, scope: { accountId: string; mode: Mode }): Knex.QueryBuilder {
  return db('coupons').where({ account_id: scope.accountId, mode: scope.mode });
}

/** Archives the coupon (the first archiving's time stays); the row as it then is. */
export async function archiveCoupon(db: Db, id: string, now: Date): Promise<CouponRow> {
  const [row] = (await db('coupons').where({ id }).update({ archived_at: db.raw('coalesce(archived_at, ?)', [now]) }).returning('*')) as CouponRow[];
  return row!;
}

// One statement: the row lock it takes makes concurrent applications wait, and each one that
// waited checks the count the one before it left, so maxRedemptions is never passed.
const REDEEM_SQL = `update coupons set times_redeemed = times_redeemed + 1
  where id = $1 and account_id = $2 and mode = $3 and archived_at is null
    and (max_redemptions is null or times_redeemed < max_redemptions) and (redeem_by is null or redeem_by > $4)
  returning *`;

/** Counts one application of the coupon if it is the scope's and valid at `now` (wall time); the row, or undefined when not. */
export async function redeemCoupon(db: Db, id: string, scope: { accountId: string; mode: Mode }, now: Date): Promise<CouponRow | undefined> {
  return (await sql<CouponRow>(db, REDEEM_SQL, [id, scope.accountId, scope.mode, now]))[0];
}

export async function findCoupon(db: Db, id: string): Promise<CouponRow | undefined> {
  return (await sql<CouponRow>(db, 'select * from coupons where id = $1', [id]))[0];
}
