// Advance a test clock: records where it goes (status `advancing`) and, once that has committed,
// starts the clock's advance workflow (workflows/test-clock-advance.ts), which steps it there
// through every instant its customers' workflows wait for. One advance at a time.
import { ApiError } from '../../domain/errors';
import { lockTestClock, updateTestClock, type TestClockRow } from '../../db/test-clocks';
import { testClockAdvanceStart } from '../../orchestration/starts';
import type { ServiceContext } from '../context';
import { advanceRefusal } from './clock-rules';

/** In the request's transaction (the clock's row locked to its end). */
export async function advanceTestClock(ctx: ServiceContext, clock: TestClockRow, target: Date): Promise<TestClockRow> {
  const locked = (await lockTestClock(ctx.db, clock.id))!;
  if (locked.advancing_to !== null) {
    throw new ApiError('CONFLICT', `The clock ${clock.id} is still advancing to ${locked.advancing_to.toISOString()}: wait until its status is ready.`);
  }
  const refusal = advanceRefusal(target, locked.frozen_time);
  if (refusal !== null) throw refusal;
  const advancing = await updateTestClock(ctx.db, clock.id, { advancing_to: target });
  ctx.afterCommit(async () => {
    await ctx.workflows.start(testClockAdvanceStart({ ...advancing, advancing_to: target }));
  });
  return advancing;
}
