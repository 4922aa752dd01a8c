// Test clocks and the instants their customers' workflows wait for (clock_waits). Every change of
// a clock's time, and every wait written, locks the clock's row first: a wait is never written
// between an advance's reading of the waits and its moving the clock.
import type { Knex } from 'knex';
import { sql, type Statement } from './sql';

type Db = Knex | Knex.Transaction;

export interface TestClockRow {
  id: string;
  account_id: string;
  mode: 'test';
  name: string | null;
  frozen_time: Date;
  advancing_to: Date | null;
  created_at: Date;
  deleted_at: Date | null;
}

export async function insertTestClock(db: Db, row: TestClockRow): Promise<void> {
  await db('test_clocks').insert(row);
}

/** The clock's row, locked until `db`'s transaction ends (an advance's step, the clock's changes). */
export async function lockTestClock(db: Db, id: string): Promise<TestClockRow | undefined> {
  return (await db('test_clocks').where({ id }).forUpdate().first()) as TestClockRow | undefined;
}

/**
 * The clock's row, shared until `db`'s transaction ends: for writing a workflow's wait. Waits are
 * written side by side; an advance's step (lockTestClock) waits for them, and they for it, so no
 * wait falls between the step's reading of the waits and its moving the clock.
 */
export async function shareTestClock(db: Db, id: string): Promise<TestClockRow | undefined> {
  return (await db('test_clocks').where({ id }).forShare().first()) as TestClockRow | undefined;
}

export async function updateTestClock(db: Db, id: string, changes: Partial<Pick<TestClockRow, 'frozen_time' | 'advancing_to' | 'deleted_at'>>): Promise<TestClockRow> {
  const [row] = (await db('test_clocks').where({ id }).update(changes).returning('*')) as TestClockRow[];
  return row!;
}

/** An account's clocks (test mode), deleted ones left out. */
export function testClocksQuery(db: Db, scope: { accountId: string; mode: string }): Knex.QueryBuilder {
  return db('test_clocks').where({ account_id: scope.accountId, mode: scope.mode }).whereNull('deleted_at');
}

/** Clocks whose advance had not finished (the boot-time resumer's). */
export async function advancingClocks(db: Db): Promise<(Pick<TestClockRow, 'id' | 'account_id' | 'mode'> & { advancing_to: Date })[]> {
  return db('test_clocks').whereNotNull('advancing_to').select('id', 'account_id', 'mode', 'advancing_to');
}

export async function findTestClock(db: Db, id: string): Promise<TestClockRow | undefined> {
  return (await db('test_clocks').where({ id }).first()) as TestClockRow | undefined;
}

const PUT_CLOCK_WAIT_SQL = `with clock as (select * from test_clocks where id = $1 for share),
  waiting as (
    insert into clock_waits (workflow_id, clock_id, due_at) select $2::text, $1::text, $3::timestamptz from clock
    on conflict (workflow_id) do update set clock_id = excluded.clock_id, due_at = excluded.due_at
  )
  select * from clock`;

/** The statement of putClockWait. */
export function clockWaitStatement(wait: { workflowId: string; clockId: string; dueAt: Date }): Statement {
  return { text: PUT_CLOCK_WAIT_SQL, values: [wait.clockId, wait.workflowId, wait.dueAt] };
}

/**
 * Writes the workflow's wait for `dueAt` (in place of any it had), with the clock's row shared
 * (shareTestClock) to the end of `db`'s transaction, in one statement. The clock as it stands;
 * undefined, and nothing written, when there is no such clock.
 */
export async function putClockWait(db: Db, wait: { workflowId: string; clockId: string; dueAt: Date }): Promise<TestClockRow | undefined> {
  const { text, values } = clockWaitStatement(wait);
  const [clock] = await sql<TestClockRow>(db, text, [...values]);
  return clock;
}

const DELETE_CLOCK_WAITS_SQL = `with deleted as (delete from clock_waits where workflow_id = any($1::text[]) returning clock_id)
  select c.* from test_clocks c where c.id in (select clock_id from deleted)`;

/** The statement of deleteClockWait. */
export function clockWaitDeletion(workflowId: string): Statement {
  return { text: DELETE_CLOCK_WAITS_SQL, values: [[workflowId]] };
}

/** Deletes the workflow's wait, if it had one; the clock it waited on. */
export async function deleteClockWait(db: Db, workflowId: string): Promise<TestClockRow | undefined> {
  return (await deleteClockWaits(db, [workflowId]))[0];
}

/** Deletes the workflows' waits, those they had; the clocks they waited on, each once. */
export async function deleteClockWaits(db: Db, workflowIds: readonly string[]): Promise<TestClockRow[]> {
  return sql<TestClockRow>(db, DELETE_CLOCK_WAITS_SQL, [workflowIds]);
}

/** The earliest instant any workflow waits for on the clock, if at or before `until`. */
export async function earliestClockWait(trx: Knex.Transaction, clockId: string, until: Date): Promise<Date | undefined> {
  const row = (await trx('clock_waits').where({ clock_id: clockId }).where('due_at', '<=', until).min({ due: 'due_at' }).first()) as { due: Date | null } | undefined;
  return row?.due ?? undefined;
}

/** The workflows waiting on the clock for an instant at or before `at`. */
export async function clockWaitsDue(db: Db, clockId: string, at: Date): Promise<string[]> {
  return (await db('clock_waits').where({ clock_id: clockId }).where('due_at', '<=', at).orderBy('due_at').pluck('workflow_id')) as string[];
}
