// A test clock's advance (POST /v1/test_helpers/test_clocks/{id}/advance): steps the clock through
// every instant its customers' workflows wait for up to the target, in time order. At each step
// it moves the clock and wakes the workflows due there, then waits until each has moved its wait
// past the step or left the clock (what was due has settled), before the next; when nothing has
// moved for a second, it wakes those still due again, dropping the waits of any no longer running. At the target the
// clock is `ready`. Started after the advance's commit, and at boot for every clock still advancing:
// the clock's row says where it stands.
import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ClockStep, TestClockActivities } from '../activities/test-clocks';

export interface TestClockAdvanceInput {
  clockId: string;
}

/** A workflow of the clock moved or left its wait: look again. */
export const clockWaitMovedSignal = defineSignal('clockWaitMoved');

const { stepTestClock, wakeClockWaiters } = proxyActivities<TestClockActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** How long to wait for a `clockWaitMoved` before looking again anyway (one lost is not a hang). */
const LOOK_AGAIN = '1 second';

export async function testClockAdvance(input: TestClockAdvanceInput): Promise<void> {
  let moved = 0;
  setHandler(clockWaitMovedSignal, () => {
    moved++;
  });
  let lookedAgain = false;
  for (;;) {
    const seen = moved;
    const step: ClockStep = await stepTestClock(input.clockId, lookedAgain);
    if (step.kind === 'ready') return;
    if (step.kind === 'wake') await wakeClockWaiters(step.workflowIds, step.at);
    // Nothing moved for a while: the step wakes those still due again (one gone is dropped).
    lookedAgain = step.kind === 'wait' && !(await condition(() => moved !== seen, LOOK_AGAIN));
  }
}
