// The service's orchestration on Temporal's own time-skipping test server: startService's Temporal
// path (a Client port, and a Worker with the real activities) pointed at the server, plus what a
// test needs to drive time there: a clock that follows the server's time, a skip that runs what
// falls due on the way and waits until it has settled, and each workflow's history.
import { asyncLocalStorage, type Context } from '@temporalio/activity';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Clock } from '../../domain/clock';
import type { OrchestrationPort } from '../../orchestration/port';
import { WORKFLOWS_PATH } from '../../workers/service';
import { replayHistory, startTestServer } from './workflow-env';

const { EventType } = temporal.api.enums.v1;

/** How late the server may run what falls due at an instant (see ServerClock); assertions allow it. */
export const SERVER_TOLERANCE_MS = 2000;

/**
 * A settle that takes longer names the workflows still busy, before mocha's timeout would say
 * nothing: more than an activity's retries with the default backoff (1 + 2 + 4 + 8 s) take.
 */
const SETTLE_LIMIT_MS = 20_000;

/**
 * The server's time, for the API and the activities. The server's clock is the wall clock plus
 * what has been skipped: between skips it runs in real time, and while an activity or a workflow
 * task is outstanding it does not skip. So:
 * - outside an activity, now = Date.now() + offset (now() is synchronous: it cannot ask the server),
 *   the offset read from the server after each skip as if at the end of the call, so this clock may
 *   lag the server by that call's latency but never leads it: nothing an activity stamps appears to
 *   precede what the API saw before it;
 * - inside an activity, which runs *during* a skip, when that offset is stale, now is the attempt's
 *   scheduled time on the server (the instant the timer that led to it fired) plus the real time
 *   since the attempt first read the clock: exact at its first read, moving in real time after.
 * Code outside activities that runs during a skip (the webhook dispatcher's bookkeeping) reads the
 * time before the skip; nothing stamped there is compared with activity times.
 */
class ServerClock implements Clock {
  private offset = 0;
  private readonly attempts = new WeakMap<Context, { scheduledAt: number; firstReadAt: number }>();

  now(): Date {
    const activity = asyncLocalStorage.getStore();
    if (activity === undefined) return new Date(Date.now() + this.offset);
    let attempt = this.attempts.get(activity);
    if (attempt === undefined) {
      attempt = { scheduledAt: activity.info.currentAttemptScheduledTimestampMs, firstReadAt: Date.now() };
      this.attempts.set(activity, attempt);
    }
    return new Date(attempt.scheduledAt + (Date.now() - attempt.firstReadAt));
  }

  async follow(env: TestWorkflowEnvironment): Promise<void> {
    const serverNow = await env.currentTimeMs();
    this.offset = serverNow - Date.now();
  }
}

/** What a completed workflow task records when its workflow then waits (on a timer or a signal). */
const WORKFLOW_WAITS_AFTER = new Set([
  EventType.EVENT_TYPE_TIMER_STARTED,
  EventType.EVENT_TYPE_TIMER_CANCELED,
  EventType.EVENT_TYPE_MARKER_RECORDED,
  EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
  EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED,
  // The server writes an update's acceptance and completion after the task that made them.
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED,
]);

const CLOSED = new Set([
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
]);

/**
 * Where a workflow stands, from its history: `busy` while a workflow task or an activity is
 * outstanding (anything after its last completed task other than the timers and markers that task
 * recorded), `closed` once it has ended (a continue-as-new is busy: its next run starts).
 */
function standing(history: temporal.api.history.v1.IHistory): 'busy' | 'waiting' | 'closed' {
  const events = history.events ?? [];
  const last = events.at(-1)?.eventType;
  if (last != null && CLOSED.has(last)) return 'closed';
  for (let i = events.length - 1; i >= 0; i--) {
    const type = events[i]!.eventType;
    if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) return 'waiting';
    if (type == null || !WORKFLOW_WAITS_AFTER.has(type)) return 'busy';
  }
  return 'busy';
}

export interface TimeSkippingServer {
  /** host:port, what TEMPORAL_ADDRESS takes. */
  address: string;
  /** The service's clock (startService's `clock`). */
  clock: Clock;
  /** Learns every workflow the service starts (startService's `wrapPort`). */
  wrapPort(port: OrchestrationPort): OrchestrationPort;
  /** Waits until no workflow task or activity is outstanding, after `drain` starts what it has. */
  settle(drain: () => Promise<void>): Promise<void>;
  /** Skips the server's time forward; what falls due runs at its instant on the server. */
  skip(ms: number, drain: () => Promise<void>): Promise<void>;
  history(workflowId: string): Promise<temporal.api.history.v1.IHistory>;
  /** Replays the workflow's history on Temporal's Core. */
  replay(workflowId: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startTimeSkippingServer(executable: string): Promise<TimeSkippingServer> {
  const env = await startTestServer(executable);
  try {
    const clock = new ServerClock();
    await clock.follow(env);
    // Every id the service started; a closed one leaves the set (a start again adds it back).
    const tracked = new Set<string>();
    const history = (workflowId: string) => env.client.workflow.getHandle(workflowId).fetchHistory();
    const busyNow = async (): Promise<string[]> => {
      const busy: string[] = [];
      for (const workflowId of [...tracked]) {
        const now = standing(await history(workflowId));
        if (now === 'closed') tracked.delete(workflowId);
        if (now === 'busy') busy.push(workflowId);
      }
      return busy;
    };
    const settle = async (drain: () => Promise<void>): Promise<void> => {
      const until = Date.now() + SETTLE_LIMIT_MS;
      for (;;) {
        const busy = await busyNow();
        // Events recorded by what just finished start their deliveries here; a start is tracked.
        await drain();
        if (busy.length === 0 && (await busyNow()).length === 0) return;
        if (Date.now() > until) throw new Error(`still busy after ${SETTLE_LIMIT_MS} ms: ${busy.join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    return {
      address: env.address,
      clock,
      wrapPort: (port) => ({
        ...port,
        start(start) {
          tracked.add(start.workflowId);
          return port.start(start);
        },
        signalWithStart(start, signalName, args) {
          tracked.add(start.workflowId);
          return port.signalWithStart(start, signalName, args);
        },
      }),
      settle,
      async skip(ms, drain) {
        await settle(drain);
        if (ms > 0) await env.sleep(ms);
        await clock.follow(env);
        await settle(drain);
      },
      history,
      replay: async (workflowId) => replayHistory(await history(workflowId), WORKFLOWS_PATH, workflowId),
      stop: () => env.teardown(),
    };
  } catch (err) {
    await env.teardown();
    throw err;
  }
}
