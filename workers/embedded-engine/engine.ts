// The embedded engine: plays the part of Temporal's server and Core for the workflow bundle, in
// this process. Each workflow run lives in the SDK's reusable V8 sandbox; the engine feeds it
// activations, carries out its commands (timers, activities with their retry policy, child
// workflows, continue-as-new, patches) and writes the history a server would have written, so
// every run can be replayed by the real Core. It is not durable: the boot-time resumers restart
// the workflows of non-final objects after a restart.
//
// This file is the public API. The work is done by collaborators sharing each run's state
// (run.ts): the runs (runs.ts), the activation loop (workflow-tasks.ts), the workflow cache
// (workflow-cache.ts), one module per kind of command (timers.ts, activities.ts,
// child-workflows.ts, signals-and-updates.ts, workflow-execution.ts), and the work in progress
// (background-work.ts).
import { randomUUID } from 'node:crypto';
import { CancelledFailure, defaultPayloadConverter, TerminatedFailure } from '@temporalio/common';
import type { ActivityFunction, SearchAttributePair } from '@temporalio/common';
import { toPayloads } from '@temporalio/common/lib/converter/payload-converter';
import { temporal } from '@temporalio/proto';
import type { ReusableVMWorkflowCreator } from '@temporalio/worker/lib/workflow/reusable-vm';
import { ActivityCommands } from './activities';
import { BackgroundWork } from './background-work';
import { ChildWorkflowCommands } from './child-workflows';
import { RealClock, VirtualClock } from './clock';
import type { Clock } from './clock';
import { failureToError } from './failures';
import { ENGINE_IDENTITY } from './history';
import { silentLog } from './log';
import type { EngineLog } from './log';
import type { Payload } from './proto';
import type { Deliver, Run, WorkflowStatus } from './run';
import { RunRegistry } from './runs';
import { createWorkflowCreator } from './sandbox';
import { SignalsAndUpdates } from './signals-and-updates';
import { TimerCommands } from './timers';
import { bundleWorkflows, type WorkflowBundle } from './workflow-bundle';
import { defaultMaxCachedWorkflows, WorkflowCache } from './workflow-cache';
import { ExecutionCommands } from './workflow-execution';
import { WorkflowTasks } from './workflow-tasks';
import { WorkflowBlockedError, WorkflowClosedError, WorkflowNotFoundError, WorkflowTaskFailedError } from '../../orchestration/errors';

export type { WorkflowStatus } from './run';

const { EventType } = temporal.api.enums.v1;

export interface EngineStartOptions {
  workflowType: string;
  workflowId: string;
  args?: unknown[];
  taskQueue?: string;
  searchAttributes?: SearchAttributePair[];
  /** 'reject-duplicate' (default): a closed workflow with this id is not started again. */
  idReusePolicy?: 'reject-duplicate' | 'allow-duplicate';
}

export interface EngineOptions {
  /** Path of the workflows module (bundled once per process), or an already built bundle. */
  workflowsPath?: string;
  workflowBundle?: WorkflowBundle;
  activities: Record<string, ActivityFunction>;
  clock: 'real' | 'virtual' | Clock;
  namespace?: string;
  taskQueue?: string;
  log?: EngineLog;
  /**
   * Virtual time stands still while an activity runs; after this much real time an activity is
   * taken as hung and time may move on (to its start-to-close timeout, for instance).
   */
  hungActivityAfterMs?: number;
  /**
   * Cut off a workflow stuck in a synchronous loop after this long, as a real Worker does (5 s
   * there). Off by default: it costs a watchdog thread per call into the sandbox.
   */
  isolateExecutionTimeoutMs?: number;
  /** Keep the history of closed runs (for export and replay). Default: on with a virtual clock. */
  keepClosedHistory?: boolean;
  /**
   * Open workflows kept in the sandbox at once (by default from the heap's limit, as a Temporal
   * worker's workflow cache: workflow-cache.ts defaultMaxCachedWorkflows), beyond which the least
   * recently used idle one is evicted; a workflow going to sleep for a minute or more is evicted
   * right after its task. An evicted workflow's sandbox is freed, and rebuilt by replaying the
   * activations it was given when it next has work.
   */
  maxCachedWorkflows?: number;
  /**
   * Activity attempts running at once (100 unless stated, a Temporal worker's default
   * maxConcurrentActivityTaskExecutions): the rest wait their turn (by priority key, as a server
   * hands out its backlog, then in order), so a storm of activities does not queue thousands on
   * the database's pool, where the API's requests wait too. Those called together are taken in
   * batches (db/batched.ts), so the cap also bounds how many can be.
   */
  maxConcurrentActivities?: number;
}

export interface RunDescription {
  workflowId: string;
  runId: string;
  workflowType: string;
  taskQueue: string;
  status: WorkflowStatus;
  startTime: Date;
  closeTime?: Date;
  historyLength: number;
  searchAttributes: Record<string, unknown>;
  /** Set when a workflow task failed: the run is stuck until the code is fixed and it restarts. */
  taskFailure?: string;
  /** Whether the run's sandbox is alive (false: evicted from the cache, or closed). */
  inSandbox: boolean;
}

export class EmbeddedEngine {
  readonly clock: Clock;
  readonly namespace: string;
  readonly taskQueue: string;
  private readonly work: BackgroundWork;
  private readonly runs: RunRegistry;
  private readonly cache: WorkflowCache;
  private readonly activities: ActivityCommands;
  private readonly signalsAndUpdates: SignalsAndUpdates;
  private readonly tasks: WorkflowTasks;

  private constructor(
    private readonly creator: ReusableVMWorkflowCreator,
    readonly bundle: WorkflowBundle,
    activityFns: Record<string, ActivityFunction>,
    options: EngineOptions,
  ) {
    this.clock = options.clock === 'real' ? new RealClock() : options.clock === 'virtual' ? new VirtualClock() : options.clock;
    this.namespace = options.namespace ?? 'default';
    this.taskQueue = options.taskQueue ?? 'kasi';
    const log = options.log ?? silentLog;
    const keepClosedHistory = options.keepClosedHistory ?? this.clock.kind === 'virtual';
    this.work = new BackgroundWork(log, options.hungActivityAfterMs ?? 2_000);
    // Commands queue jobs for a run's next workflow task, and workflow tasks carry out commands:
    // the one cycle between the collaborators, closed here.
    const deliver: Deliver = (run, delivery) => this.tasks.deliver(run, delivery);
    this.runs = new RunRegistry(creator, this.clock, this.namespace, this.taskQueue, deliver);
    this.cache = new WorkflowCache(this.clock, options.maxCachedWorkflows ?? defaultMaxCachedWorkflows(), this.work);
    this.activities = new ActivityCommands(this.clock, this.namespace, activityFns, log, this.work, deliver, options.maxConcurrentActivities ?? 100);
    this.signalsAndUpdates = new SignalsAndUpdates(this.clock);
    const timers = new TimerCommands(this.clock, deliver);
    const children = new ChildWorkflowCommands(this.clock, this.namespace, this.runs, deliver);
    const execution = new ExecutionCommands(this.clock, this.runs, timers, this.activities, children, this.signalsAndUpdates, this.cache, keepClosedHistory);
    this.tasks = new WorkflowTasks(this.clock, log, this.runs, this.cache, this.work, {
      timers,
      activities: this.activities,
      children,
      signalsAndUpdates: this.signalsAndUpdates,
      execution,
    });
  }

  static async create(options: EngineOptions): Promise<EmbeddedEngine> {
    let bundle = options.workflowBundle;
    if (bundle === undefined) {
      if (options.workflowsPath === undefined) throw new TypeError('EmbeddedEngine needs workflowsPath or workflowBundle');
      bundle = await bundleWorkflows(options.workflowsPath);
    }
    const creator = createWorkflowCreator(bundle, Object.keys(options.activities), options.isolateExecutionTimeoutMs);
    return new EmbeddedEngine(creator, bundle, options.activities, options);
  }

  /** Starts a workflow; with the id already running (or closed, when reuse is rejected) it is a no-op. */
  start(options: EngineStartOptions): { runId: string; started: boolean } {
    this.assertRunning();
    const existing = this.runs.latest(options.workflowId);
    if (existing && (existing.open || options.idReusePolicy !== 'allow-duplicate')) {
      return { runId: existing.runId, started: false };
    }
    const run = this.runs.create(options, {});
    return { runId: run.runId, started: true };
  }

  /**
   * Signals a running workflow, or starts it with the signal in its first activation. A closed one
   * is started again only when reuse is allowed; otherwise, as a server refuses the start, nothing
   * happens: no run, no signal.
   */
  async signalWithStart(options: EngineStartOptions, signalName: string, args: unknown[] = []): Promise<{ runId: string; started: boolean }> {
    this.assertRunning();
    const existing = this.runs.latest(options.workflowId);
    if (existing?.open) {
      await this.signal(options.workflowId, signalName, args);
      return { runId: existing.runId, started: false };
    }
    if (existing && options.idReusePolicy !== 'allow-duplicate') return { runId: existing.runId, started: false };
    const run = this.runs.create(options, {}, (r) => this.signalsAndUpdates.signalDelivery(r, signalName, args));
    return { runId: run.runId, started: true };
  }

  async signal(workflowId: string, signalName: string, args: unknown[] = []): Promise<void> {
    for (;;) {
      const run = this.runs.open(workflowId);
      // Through the run's queue, so a signal never lands between a workflow task and its commands.
      const delivered = await run.exclusive(() => {
        if (!run.open) return false;
        this.tasks.deliver(run, this.signalsAndUpdates.signalDelivery(run, signalName, args));
        return true;
      });
      // The run closed while the signal waited its turn: one continued as new takes it, as the
      // server gives a signal to the workflow's current run; one closed for good is refused above.
      if (delivered) return;
    }
  }

  /**
   * Runs an update and waits for its handler's result. It goes through the run's queue like a
   * signal; the validator's rejection (or the handler's failure) rejects with
   * WorkflowUpdateRejectedError, and a workflow that closes before the handler finishes with
   * WorkflowClosedError.
   */
  async update<R = unknown>(workflowId: string, updateName: string, args: unknown[] = []): Promise<R> {
    const run = this.runs.open(workflowId);
    const updateId = randomUUID();
    const input = toPayloads(defaultPayloadConverter, ...args) ?? [];
    const result = await new Promise<Payload | null | undefined>((resolve, reject) => {
      run
        .exclusive(() => {
          if (!run.open) throw new WorkflowClosedError(workflowId);
          if (run.taskFailure) throw new WorkflowTaskFailedError(workflowId, failureToError(run.taskFailure));
          this.tasks.deliver(run, this.signalsAndUpdates.updateDelivery(run, updateId, { name: updateName, input, resolve, reject }));
        })
        .catch(reject);
    });
    return (result ? defaultPayloadConverter.fromPayload(result) : undefined) as R;
  }

  async query<T = unknown>(workflowId: string, queryType: string, args: unknown[] = []): Promise<T> {
    const run = this.runs.latest(workflowId);
    if (run === undefined) throw new WorkflowNotFoundError(workflowId);
    return run.exclusive(() => this.tasks.query<T>(run, queryType, args));
  }

  async cancel(workflowId: string): Promise<void> {
    const run = this.runs.open(workflowId);
    await run.exclusive(() => {
      if (!run.open || run.cancelRequested) return;
      run.cancelRequested = true;
      this.tasks.deliver(run, {
        job: { cancelWorkflow: { reason: 'cancel requested' } },
        record: () =>
          run.history.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED, this.clock.now(), {
            workflowExecutionCancelRequestedEventAttributes: { cause: 'cancel requested', identity: ENGINE_IDENTITY },
          }),
      });
    });
  }

  describe(workflowId: string): RunDescription | undefined {
    const run = this.runs.latest(workflowId);
    if (run === undefined) return undefined;
    return {
      workflowId,
      runId: run.runId,
      workflowType: run.workflowType,
      taskQueue: run.taskQueue,
      status: run.status,
      startTime: new Date(run.startTime),
      closeTime: run.closeTime === undefined ? undefined : new Date(run.closeTime),
      historyLength: run.history.length,
      searchAttributes: Object.fromEntries(Object.entries(run.searchAttributes).map(([k, v]) => [k, defaultPayloadConverter.fromPayload(v)])),
      taskFailure: run.taskFailure?.message ?? undefined,
      inSandbox: run.workflow !== undefined,
    };
  }

  /**
   * The workflow's result, following continue-as-new. With a virtual clock, time skips ahead to
   * the next timer while the workflow waits; a workflow waiting on nothing is an error.
   */
  async result<T = unknown>(workflowId: string): Promise<T> {
    for (;;) {
      const run = this.runs.latest(workflowId);
      if (run === undefined) throw new WorkflowNotFoundError(workflowId);
      if (run.taskFailure) throw new WorkflowTaskFailedError(workflowId, failureToError(run.taskFailure));
      if (run.outcome && run.outcome.status !== 'CONTINUED_AS_NEW') return this.unwrap<T>(run);
      if (run.outcome === undefined) {
        if (this.clock instanceof VirtualClock) {
          await this.work.settle();
          if (!run.open || run.taskFailure) continue;
          const next = this.clock.nextDueAt();
          if (next === undefined) throw new WorkflowBlockedError(workflowId);
          this.clock.moveTo(next);
        } else {
          await run.whenClosed();
        }
      }
    }
  }

  /** Virtual clock only: moves time forward, running everything that falls due on the way. */
  async advance(ms: number): Promise<void> {
    const clock = this.virtualClock();
    const target = clock.now() + ms;
    for (;;) {
      await this.work.settle();
      const next = clock.nextDueAt();
      if (next === undefined || next > target) break;
      clock.moveTo(next);
    }
    clock.moveTo(target);
    await this.work.settle();
  }

  /** Waits until no activation is pending and no activity is running (hung ones aside). */
  async runUntilIdle(): Promise<void> {
    await this.work.settle();
  }

  /** The history a server would hold for the run (the latest run of the id by default). */
  exportHistory(workflowId: string, runId?: string): temporal.api.history.v1.History {
    const run = runId ? this.runs.get(runId) : this.runs.latest(workflowId);
    if (run === undefined || run.workflowId !== workflowId) throw new WorkflowNotFoundError(workflowId);
    return run.history.toHistory();
  }

  /** Every run id of a workflow id, oldest first (a continue-as-new chain). */
  runIds(workflowId: string): string[] {
    return [...this.runs.all()].filter((r) => r.workflowId === workflowId).map((r) => r.runId);
  }

  get openWorkflowCount(): number {
    let count = 0;
    for (const run of this.runs.latestRuns()) if (run.open) count++;
    return count;
  }

  async shutdown(): Promise<void> {
    if (this.work.stopped) return;
    this.work.stopped = true;
    this.clock.clear();
    for (const run of this.runs.all()) this.activities.cancelAttempts(run);
    // Attempts are told to stop but not waited for: an activity may ignore cancellation.
    await this.work.activationsSettled();
    for (const run of this.runs.all()) await this.cache.disposeSandbox(run);
    await this.creator.destroy();
  }

  private unwrap<T>(run: Run): T {
    const outcome = run.outcome;
    if (outcome?.status === 'COMPLETED') return (outcome.result ? defaultPayloadConverter.fromPayload(outcome.result) : undefined) as T;
    if (outcome?.status === 'FAILED') throw failureToError(outcome.failure);
    if (outcome?.status === 'CANCELLED') throw new CancelledFailure('Workflow cancelled');
    throw new TerminatedFailure(outcome?.status === 'TERMINATED' ? outcome.reason : 'terminated');
  }

  private virtualClock(): VirtualClock {
    if (!(this.clock instanceof VirtualClock)) throw new TypeError('advance() needs the virtual clock');
    return this.clock;
  }

  private assertRunning(): void {
    if (this.work.stopped) throw new Error('the embedded engine is shut down');
  }
}
