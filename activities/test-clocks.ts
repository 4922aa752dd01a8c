// The test clocks' activities: thin adapters over services/test-clocks/step.ts, for the advance
// workflow and the workflows living on a clock (workflows/billing-time.ts).
import { leaveClock, stepTestClock, waitOnClock, wakeClockWaiters, type ClockStep } from '../services/test-clocks/step';
import { serviceDeps, type ActivityDeps } from './deps';

export type { ClockStep };

export function createTestClockActivities(deps: ActivityDeps) {
  const services = serviceDeps(deps);
  return {
    stepTestClock: (clockId: string, lookedAgain?: boolean): Promise<ClockStep> => stepTestClock(services, clockId, lookedAgain),
    wakeClockWaiters: (workflowIds: string[], at: number): Promise<void> => wakeClockWaiters(services, workflowIds, at),
    waitOnClock: (wait: { clockId: string; workflowId: string; dueAt: number }): Promise<number> => waitOnClock(services, wait),
    leaveClock: (workflowId: string): Promise<void> => leaveClock(services, workflowId),
  };
}

export type TestClockActivities = ReturnType<typeof createTestClockActivities>;
