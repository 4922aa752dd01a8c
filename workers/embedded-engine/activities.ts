// Activity commands: scheduleActivity (each attempt run in this process, retried by the command's
// retry policy, cut off by its start-to-close timeout) and requestCancelActivity (by the command's
// cancellation type), with the events a server writes for them.
import { randomUUID } from 'node:crypto';
import type { Info as ActivityInfo } from '@temporalio/activity';
import { decodePriority, decompileRetryPolicy } from '@temporalio/common';
import type { ActivityFunction } from '@temporalio/common';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { coresdk, temporal } from '@temporalio/proto';
import { startAttempt } from './activity-runner';
import type { AttemptHandle, AttemptResult } from './activity-runner';
import type { BackgroundWork } from './background-work';
import type { Clock, ClockTimer } from './clock';
import { activityCancelledFailure, activityFailure, retryState, startToCloseTimeoutFailure } from './failures';
import type { ActivityRef, RetryStateName } from './failures';
import { ENGINE_IDENTITY } from './history';
import type { Job } from './jobs';
import type { EngineLog } from './log';
import type { Command, Loose } from './proto';
import { decideRetry } from './retry';
import { withEntry, withoutEntry } from './run';
import type { Deliver, Run } from './run';

const { EventType } = temporal.api.enums.v1;
const { ActivityCancellationType } = coresdk.workflow_commands;

export interface ActivityState {
  seq: number;
  command: coresdk.workflow_commands.IScheduleActivity;
  ref: ActivityRef;
  attempt: number;
  scheduledAt: number;
  attemptHandle?: AttemptHandle;
  timer?: ClockTimer;
  /** Set once the workflow no longer waits for this activity. */
  done: boolean;
  cancelRequested: boolean;
  cancelRequestedEventId?: number;
}

/** A server's default priority key when an activity gives none: (1 + 5) / 2 with its default range. */
const DEFAULT_PRIORITY_KEY = 3;

/**
 * Attempts waiting for a slot, in the order a Temporal server hands out a task queue's backlog:
 * the lowest priority key first (an activity's `priority.priorityKey`; none or 0: the default),
 * in the order they came within a key.
 */
class WaitingAttempts {
  private readonly byKey = new Map<number, (() => void)[]>();
  /** The keys with attempts waiting, lowest first. */
  private keys: number[] = [];

  push(priorityKey: number | null | undefined, turn: () => void): void {
    const key = priorityKey || DEFAULT_PRIORITY_KEY;
    let queue = this.byKey.get(key);
    if (queue === undefined) {
      this.byKey.set(key, (queue = []));
      this.keys = [...this.keys, key].sort((a, b) => a - b);
    }
    queue.push(turn);
  }

  /** The next attempt's turn, taken off the queue. */
  shift(): (() => void) | undefined {
    const key = this.keys[0];
    if (key === undefined) return undefined;
    const queue = this.byKey.get(key)!;
    const turn = queue.shift();
    if (queue.length === 0) {
      this.byKey.delete(key);
      this.keys = this.keys.slice(1);
    }
    return turn;
  }
}

export class ActivityCommands {
  /** Attempts running now; beyond `maxRunning` the rest wait their turn (WaitingAttempts). */
  private running = 0;
  private readonly waiting = new WaitingAttempts();

  constructor(
    private readonly clock: Clock,
    private readonly namespace: string,
    private readonly activityFns: Record<string, ActivityFunction>,
    private readonly log: EngineLog,
    private readonly work: BackgroundWork,
    private readonly deliver: Deliver,
    private readonly maxRunning: number,
  ) {}

  schedule(run: Run, command: coresdk.workflow_commands.IScheduleActivity, completedEventId: number): void {
    const now = this.clock.now();
    const seq = command.seq ?? 0;
    const activityId = command.activityId || String(seq);
    const scheduledEventId = run.history.add(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, now, {
      activityTaskScheduledEventAttributes: {
        activityId,
        activityType: { name: command.activityType },
        taskQueue: { name: command.taskQueue || run.taskQueue },
        header: { fields: command.headers ?? {} },
        input: { payloads: command.arguments ?? [] },
        scheduleToCloseTimeout: command.scheduleToCloseTimeout,
        scheduleToStartTimeout: command.scheduleToStartTimeout,
        startToCloseTimeout: command.startToCloseTimeout,
        heartbeatTimeout: command.heartbeatTimeout,
        workflowTaskCompletedEventId: completedEventId,
        retryPolicy: command.retryPolicy,
        priority: command.priority,
      },
    });
    const state: ActivityState = {
      seq,
      command,
      ref: { activityId, activityType: command.activityType ?? '', scheduledEventId, startedEventId: 0 },
      attempt: 1,
      scheduledAt: now,
      done: false,
      cancelRequested: false,
    };
    run.activities = withEntry(run.activities, seq, state);
    this.runAttempt(run, state);
  }

  requestCancel(run: Run, seq: number, completedEventId: number): void {
    const state = run.activities?.get(seq);
    if (state === undefined || state.done) return;
    const type = state.command.cancellationType ?? 0;
    if (type === ActivityCancellationType.ABANDON) {
      // No event: the workflow stopped waiting; the attempt runs on and its result is dropped.
      state.done = true;
      run.activities = withoutEntry(run.activities, seq);
      return;
    }
    state.cancelRequestedEventId = run.history.add(EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED, this.clock.now(), {
      activityTaskCancelRequestedEventAttributes: { scheduledEventId: state.ref.scheduledEventId, workflowTaskCompletedEventId: completedEventId },
    });
    state.cancelRequested = true;
    if (state.timer) this.clock.cancel(state.timer);
    state.timer = undefined;
    if (type === ActivityCancellationType.TRY_CANCEL) {
      // Already resolved for the workflow (resolveLocally); tell the attempt and forget it.
      state.done = true;
      run.activities = withoutEntry(run.activities, seq);
      state.attemptHandle?.cancel('CANCELLED');
      return;
    }
    // WAIT_CANCELLATION_COMPLETED: the workflow waits for the attempt to acknowledge.
    if (state.attemptHandle) state.attemptHandle.cancel('CANCELLED');
    else this.finish(run, state, { cancelled: {} }, 'CANCEL_REQUESTED');
  }

  /**
   * Jobs Core would produce itself in the same workflow task: activities cancelled with TRY_CANCEL
   * or ABANDON resolve at once. An activity scheduled and cancelled in the same task never reaches
   * the server: both commands are dropped.
   */
  resolveLocally(run: Run, produced: Command[], earlier: Command[]): Job[] {
    const jobs: Job[] = [];
    for (const command of produced) {
      const cancel = command.requestCancelActivity;
      if (!cancel) continue;
      const seq = cancel.seq ?? 0;
      const state = run.activities?.get(seq);
      const sameTask = [...earlier, ...produced].find((c) => c.scheduleActivity?.seq === seq);
      if (sameTask?.scheduleActivity) {
        const ref: ActivityRef = { activityId: sameTask.scheduleActivity.activityId || String(seq), activityType: sameTask.scheduleActivity.activityType ?? '', scheduledEventId: 0, startedEventId: 0 };
        sameTask.scheduleActivity = undefined;
        command.requestCancelActivity = undefined;
        jobs.push({ resolveActivity: { seq, result: { cancelled: { failure: activityCancelledFailure(ref) } } } });
        continue;
      }
      if (state === undefined || state.done) continue;
      if (state.command.cancellationType !== ActivityCancellationType.WAIT_CANCELLATION_COMPLETED) {
        jobs.push({ resolveActivity: { seq, result: { cancelled: { failure: activityCancelledFailure(state.ref) } } } });
      }
    }
    return jobs;
  }

  /** The run closed: it waits for none of its activities, and their attempts are told to stop. */
  abandonAll(run: Run): void {
    for (const activity of run.activities?.values() ?? []) {
      activity.done = true;
      if (activity.timer) this.clock.cancel(activity.timer);
      activity.attemptHandle?.cancel('CANCELLED');
    }
    run.activities = undefined;
  }

  /** Shutdown: the run's running attempts are told to stop. */
  cancelAttempts(run: Run): void {
    for (const activity of run.activities?.values() ?? []) activity.attemptHandle?.cancel('CANCELLED');
  }

  /**
   * Runs the attempt now, or, with `maxRunning` attempts running (a Temporal worker's
   * maxConcurrentActivityTaskExecutions), when its turn comes (by its priority, then in order): a
   * storm of due activities would otherwise all wait on the database's pool at once, and those
   * waiting past their start-to-close timeout be run again. Its timeout counts from its start.
   * Virtual time waits for it meanwhile.
   */
  private runAttempt(run: Run, state: ActivityState): void {
    const { command } = state;
    if (this.running >= this.maxRunning) {
      this.work.trackAttempt(
        new Promise<void>((turn) => {
          this.waiting.push(command.priority?.priorityKey, () => {
            turn();
            if (!state.done && run.open) this.runAttempt(run, state);
            else this.waiting.shift()?.();
          });
        }),
      );
      return;
    }
    this.running += 1;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.running -= 1;
      this.waiting.shift()?.();
    };
    const now = this.clock.now();
    const startToCloseMs = optionalTsToMs(command.startToCloseTimeout) ?? optionalTsToMs(command.scheduleToCloseTimeout) ?? 0;
    const scheduleToCloseMs = optionalTsToMs(command.scheduleToCloseTimeout);
    const info: ActivityInfo = {
      taskToken: Buffer.from(`${run.runId}/${state.seq}/${state.attempt}`),
      base64TaskToken: Buffer.from(`${run.runId}/${state.seq}/${state.attempt}`).toString('base64'),
      activityId: state.ref.activityId,
      activityType: state.ref.activityType,
      activityNamespace: this.namespace,
      attempt: state.attempt,
      isLocal: false,
      workflowExecution: { workflowId: run.workflowId, runId: run.runId },
      workflowNamespace: this.namespace,
      workflowType: run.workflowType,
      scheduledTimestampMs: state.scheduledAt,
      scheduleToCloseTimeoutMs: scheduleToCloseMs ?? 0,
      startToCloseTimeoutMs: startToCloseMs,
      currentAttemptScheduledTimestampMs: now,
      heartbeatTimeoutMs: optionalTsToMs(command.heartbeatTimeout),
      heartbeatDetails: undefined,
      taskQueue: command.taskQueue || run.taskQueue,
      retryPolicy: command.retryPolicy ? decompileRetryPolicy(command.retryPolicy) : undefined,
      priority: decodePriority(command.priority),
      namespace: this.namespace,
      inWorkflow: true,
    };
    const handle = startAttempt(this.activityFns[state.ref.activityType], info, command.arguments ?? [], this.log);
    state.attemptHandle = handle;
    const attempt = state.attempt;
    const settle = (result: AttemptResult): void => {
      release();
      if (state.attemptHandle !== handle || state.attempt !== attempt) return;
      if (state.timer) this.clock.cancel(state.timer);
      state.timer = undefined;
      state.attemptHandle = undefined;
      this.onAttemptResult(run, state, result);
    };
    if (startToCloseMs > 0) {
      state.timer = this.clock.schedule(now + startToCloseMs, {
        fire: () => {
          state.timer = undefined;
          handle.cancel('TIMED_OUT');
          settle({ failed: { failure: startToCloseTimeoutFailure() } });
        },
      });
    }
    this.work.trackAttempt(handle.result.then(settle, (err: unknown) => settle({ failed: { failure: { message: String(err) } } })));
  }

  private onAttemptResult(run: Run, state: ActivityState, result: AttemptResult): void {
    if (state.done || !run.open) return;
    const now = this.clock.now();
    if ('failed' in result && !state.cancelRequested) {
      const deadline = optionalTsToMs(state.command.scheduleToCloseTimeout);
      const decision = decideRetry(state.command.retryPolicy, result.failed.failure, state.attempt, now, deadline ? state.scheduledAt + deadline : undefined);
      if (decision.retry) {
        // Between attempts the server writes nothing: only the last attempt shows in history.
        state.attempt += 1;
        state.timer = this.clock.schedule(now + decision.delayMs, {
          fire: () => {
            state.timer = undefined;
            if (!state.done && run.open) this.runAttempt(run, state);
          },
        });
        return;
      }
      this.finish(run, state, result, decision.retryState);
      return;
    }
    this.finish(run, state, result, 'RETRY_POLICY_NOT_SET');
  }

  private finish(run: Run, state: ActivityState, result: AttemptResult, rs: RetryStateName): void {
    state.done = true;
    run.activities = withoutEntry(run.activities, state.seq);
    const h = run.history;
    const { seq, ref } = state;
    this.deliver(run, {
      job: () => ({ resolveActivity: { seq, result: this.resolution(state, result, rs) } }),
      record: () => {
        const now = this.clock.now();
        ref.startedEventId = h.add(EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED, now, {
          activityTaskStartedEventAttributes: { scheduledEventId: ref.scheduledEventId, identity: ENGINE_IDENTITY, requestId: randomUUID(), attempt: state.attempt },
        });
        const ids = { scheduledEventId: ref.scheduledEventId, startedEventId: ref.startedEventId };
        if ('completed' in result) {
          const payload = result.completed.result;
          h.add(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, now, {
            activityTaskCompletedEventAttributes: { ...ids, result: payload ? { payloads: [payload] } : undefined, identity: ENGINE_IDENTITY },
          });
        } else if ('cancelled' in result) {
          h.add(EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED, now, {
            activityTaskCanceledEventAttributes: { ...ids, latestCancelRequestedEventId: state.cancelRequestedEventId, identity: ENGINE_IDENTITY },
          });
        } else if (result.failed.failure.timeoutFailureInfo) {
          h.add(EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT, now, {
            activityTaskTimedOutEventAttributes: { ...ids, failure: result.failed.failure, retryState: retryState(rs) },
          });
        } else {
          h.add(EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED, now, {
            activityTaskFailedEventAttributes: { ...ids, failure: result.failed.failure, retryState: retryState(rs), identity: ENGINE_IDENTITY },
          });
        }
      },
    });
  }

  /** The activity's resolution as Core hands it to the workflow; ids are filled in at delivery. */
  private resolution(state: ActivityState, result: AttemptResult, rs: RetryStateName): Loose<coresdk.activity_result.IActivityResolution> {
    const ref = state.ref;
    const resolution: Loose<coresdk.activity_result.IActivityResolution> = {};
    if ('completed' in result) resolution.completed = { result: result.completed.result };
    else if ('cancelled' in result) resolution.cancelled = { failure: activityCancelledFailure(ref) };
    else resolution.failed = { failure: activityFailure(ref, result.failed.failure, rs) };
    return resolution;
  }
}
