// The steps of a test clock's advance, for its workflow (workflows/test-clock-advance.ts), and the
// waits of the workflows living on the clock (workflows/billing-time.ts). Each step takes the
// clock's row for update and each wait shares it, so waits are written side by side but never
// between an advance's reading of the waits and its moving the clock.
import { clockWaitsDue, deleteClockWait, deleteClockWaits, earliestClockWait, lockTestClock, putClockWait, updateTestClock, type TestClockRow } from '../../db/test-clocks';
import { clockAdvancedSignal } from '../../workflows/billing-time';
import { clockWaitMovedSignal } from '../../workflows/test-clock-advance';
import { workflowGone } from '../../orchestration/errors';
import { testClockAdvanceWorkflowId } from '../../orchestration/starts';
import type { ServiceDeps } from '../context';
import { inTransaction } from '../run';

/** What the advance does next: finished (`ready`), wake the workflows due at `at`, or wait for those woken to settle. */
export type ClockStep = { kind: 'ready' } | { kind: 'wake'; at: number; workflowIds: string[] } | { kind: 'wait' };

/**
 * `lookedAgain`: nothing has moved since the last step answered `wait`. The workflows still due
 * are woken again: one that no longer runs (its process died after its object closed, before it
 * left the clock) has its wait dropped, so the advance goes on; one at work hears it twice, harmlessly.
 */
export async function stepTestClock(deps: ServiceDeps, clockId: string, lookedAgain = false): Promise<ClockStep> {
  const step = await inTransaction(deps, async ({ db: trx }): Promise<ClockStep | { kind: 'stuck'; at: number; workflowIds: string[] }> => {
    const clock = await lockTestClock(trx, clockId);
    if (clock === undefined || clock.advancing_to === null || clock.deleted_at !== null) return { kind: 'ready' };
    const next = await earliestClockWait(trx, clockId, clock.advancing_to);
    // A workflow due at the clock's time that has not moved its wait on is still at work. Only its
    // earliest wait is read: in a storm this step runs after every wait moved, with thousands due.
    if (next !== undefined && next <= clock.frozen_time) {
      return lookedAgain ? { kind: 'stuck', at: clock.frozen_time.getTime(), workflowIds: await clockWaitsDue(trx, clockId, clock.frozen_time) } : { kind: 'wait' };
    }
    if (next === undefined) {
      await updateTestClock(trx, clockId, { frozen_time: clock.advancing_to, advancing_to: null });
      return { kind: 'ready' };
    }
    await updateTestClock(trx, clockId, { frozen_time: next });
    return { kind: 'wake', at: next.getTime(), workflowIds: await clockWaitsDue(trx, clockId, next) };
  });
  if (step.kind !== 'stuck') return step;
  await wakeClockWaiters(deps, step.workflowIds, step.at);
  return { kind: 'wait' };
}

/** Tells each workflow the clock's new time; one that no longer runs waits for nothing. */
export async function wakeClockWaiters(deps: ServiceDeps, workflowIds: string[], at: number): Promise<void> {
  for (const workflowId of workflowIds) {
    await deps.workflows.signal(workflowId, clockAdvancedSignal, [at]).catch(async (err: unknown) => {
      if (!workflowGone(err)) throw err;
      await deleteClockWait(deps.db, workflowId);
    });
  }
}

/** The clock's advance, if one runs, looks again at the waits. */
export async function nudgeAdvance(deps: ServiceDeps, clock: Pick<TestClockRow, 'id' | 'advancing_to'> | undefined): Promise<void> {
  if (clock?.advancing_to == null) return;
  await deps.workflows.signal(testClockAdvanceWorkflowId({ id: clock.id, advancing_to: clock.advancing_to }), clockWaitMovedSignal).catch((err: unknown) => {
    if (!workflowGone(err)) throw err;
  });
}

/** Writes the workflow's wait for `dueAt` on the clock; the clock's time now (ms). */
export async function waitOnClock(deps: ServiceDeps, wait: { clockId: string; workflowId: string; dueAt: number }): Promise<number> {
  const clock = await putClockWait(deps.db, { workflowId: wait.workflowId, clockId: wait.clockId, dueAt: new Date(wait.dueAt) });
  if (clock === undefined) throw new Error(`test clock ${wait.clockId} not found`);
  await nudgeAdvance(deps, clock);
  return clock.frozen_time.getTime();
}

/** The workflow waits for nothing more on its clock. */
export async function leaveClock(deps: ServiceDeps, workflowId: string): Promise<void> {
  await leaveClocks(deps, [workflowId]);
}

/** The workflows wait for nothing more on their clocks: one statement, and each clock's advance nudged once. */
export async function leaveClocks(deps: ServiceDeps, workflowIds: readonly string[]): Promise<void> {
  for (const clock of await deleteClockWaits(deps.db, workflowIds)) await nudgeAdvance(deps, clock);
}
