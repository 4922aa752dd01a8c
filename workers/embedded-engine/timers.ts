// Timer commands: startTimer and cancelTimer, with the events a server writes for them, and the
// fireTimer job when a timer is due. Every timer goes through the engine's one Clock.
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { coresdk } from '@temporalio/proto';
import type { Clock, ClockTimer, Fireable } from './clock';
import { ENGINE_IDENTITY } from './history';
import type { Command } from './proto';
import { withEntry, withoutEntry } from './run';
import type { Deliver, Run } from './run';

const { EventType } = temporal.api.enums.v1;

/**
 * A workflow timer, and its own clock callback: a sleeping run's timer is this one object (and the
 * clock's entry for it), not a closure with the scopes it keeps.
 */
export class WorkflowTimer implements Fireable {
  readonly timer: ClockTimer;

  constructor(
    readonly run: Run,
    readonly seq: number,
    readonly startedEventId: number,
    dueAt: number,
    clock: Clock,
    private readonly fired: (timer: WorkflowTimer) => void,
  ) {
    this.timer = clock.schedule(dueAt, this);
  }

  fire(): void {
    this.fired(this);
  }
}

export class TimerCommands {
  constructor(
    private readonly clock: Clock,
    private readonly deliver: Deliver,
  ) {}

  start(run: Run, command: coresdk.workflow_commands.IStartTimer, completedEventId: number): void {
    const now = this.clock.now();
    const seq = command.seq ?? 0;
    const startToFireTimeout = command.startToFireTimeout;
    const startedEventId = run.history.add(EventType.EVENT_TYPE_TIMER_STARTED, now, {
      timerStartedEventAttributes: { timerId: String(seq), startToFireTimeout, workflowTaskCompletedEventId: completedEventId },
    });
    const timer = new WorkflowTimer(run, seq, startedEventId, now + (optionalTsToMs(startToFireTimeout) ?? 0), this.clock, this.fired);
    run.timers = withEntry(run.timers, seq, timer);
  }

  cancel(run: Run, command: coresdk.workflow_commands.ICancelTimer, completedEventId: number): void {
    const now = this.clock.now();
    const seq = command.seq ?? 0;
    const state = run.timers?.get(seq);
    if (state === undefined) return;
    this.clock.cancel(state.timer);
    run.timers = withoutEntry(run.timers, seq);
    run.history.add(EventType.EVENT_TYPE_TIMER_CANCELED, now, {
      timerCanceledEventAttributes: { timerId: String(seq), startedEventId: state.startedEventId, workflowTaskCompletedEventId: completedEventId, identity: ENGINE_IDENTITY },
    });
  }

  /** The run closed: none of its timers fires. */
  cancelAll(run: Run): void {
    for (const { timer } of run.timers?.values() ?? []) this.clock.cancel(timer);
    run.timers = undefined;
  }

  /** A workflow timer is due: the run's next task gets its fireTimer job. One function for all timers. */
  private readonly fired = (timer: WorkflowTimer): void => {
    const { run, seq, startedEventId } = timer;
    run.timers = withoutEntry(run.timers, seq);
    this.deliver(run, {
      job: { fireTimer: { seq } },
      record: () => run.history.add(EventType.EVENT_TYPE_TIMER_FIRED, this.clock.now(), { timerFiredEventAttributes: { timerId: String(seq), startedEventId } }),
    });
  };
}

/**
 * A timer started and cancelled in the same workflow task never reaches the server: Core drops
 * both commands, so the history must not show them either.
 */
export function dropCancelledTimers(commands: Command[]): void {
  for (const command of commands) {
    const seq = command.cancelTimer?.seq;
    if (seq == null) continue;
    const started = commands.find((c) => c.startTimer?.seq === seq);
    if (started) {
      started.startTimer = undefined;
      command.cancelTimer = undefined;
    }
  }
}
