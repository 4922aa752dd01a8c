// Billing time for workflows (DESIGN.md decision 12): a billing workflow takes "now" from its
// customer's clock. On wall time it sleeps on Temporal timers; on a test clock it tells the clock
// the instant it waits for (activity `waitOnClock`, a row of clock_waits) and waits for the clock's
// advance to reach it (`clockAdvanced` signals), so test clocks work alike on a real Temporal
// server and on the embedded engine. Waiting for the next instant, or `leave()` when done, is how
// a workflow tells an advance that what was due has settled.
import { condition, defineSignal, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { TestClockActivities } from '../activities/test-clocks';

/** The clock moved to this time (ms since the epoch). */
export const clockAdvancedSignal = defineSignal<[number]>('clockAdvanced');

const { waitOnClock, leaveClock } = proxyActivities<TestClockActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export interface BillingTime {
  /**
   * Now, in the customer's time (ms since the epoch). On a clock: the clock's time as this workflow
   * last learnt it, so call it after `until` (a workflow's first instant comes from its object's row).
   */
  now(): number;
  /**
   * Returns once the customer's time has reached `dueAt` (ms since the epoch): true; or false as
   * soon as `interrupted()` is true first. `written`: on a clock, the clock's time when an
   * activity wrote this wait already (services/subscriptions/step.ts), so it is not written again.
   */
  until(dueAt: number, interrupted?: () => boolean, written?: number): Promise<boolean>;
  /** The workflow waits for nothing more on its clock (call before it ends). */
  leave(): Promise<void>;
}

/** The time of a customer on `clockId`, or on wall time (null). Call once, at the workflow's start. */
export function billingTime(clockId: string | null): BillingTime {
  if (clockId === null) {
    return {
      now: () => Date.now(),
      until: async (dueAt, interrupted) => {
        const ms = dueAt - Date.now();
        if (ms <= 0) return true;
        if (interrupted === undefined) {
          await sleep(ms);
          return true;
        }
        return !(await condition(interrupted, ms));
      },
      leave: () => Promise.resolve(),
    };
  }
  let clockNow = -Infinity;
  setHandler(clockAdvancedSignal, (at) => {
    clockNow = Math.max(clockNow, at);
  });
  const workflowId = workflowInfo().workflowId;
  return {
    now: () => clockNow,
    async until(dueAt, interrupted = () => false, written) {
      // The wait is written with the clock's row locked, so the clock's time read with it is the
      // one any later advance starts from: no signal can be missed between the two.
      clockNow = Math.max(clockNow, written ?? (await waitOnClock({ clockId, workflowId, dueAt })));
      await condition(() => clockNow >= dueAt || interrupted());
      return clockNow >= dueAt;
    },
    leave: () => leaveClock(workflowId),
  };
}
