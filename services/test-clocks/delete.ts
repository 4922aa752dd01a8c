// Delete a test clock: it stops (an advance under way goes no further) and is gone from the
// list and from GET. Ending its customers' subscriptions comes with subscriptions (docs/test-clocks.md).
import { updateTestClock, type TestClockRow } from '../../db/test-clocks';
import type { ServiceContext } from '../context';

export function deleteTestClock(ctx: ServiceContext, clock: TestClockRow): Promise<TestClockRow> {
  return updateTestClock(ctx.db, clock.id, { deleted_at: ctx.clock.now(), advancing_to: null });
}
