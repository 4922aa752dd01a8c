// The embedded engine: plays the part of Temporal's server and Core for the workflow bundle, in
// this process. Each workflow run lives in the SDK's reusable V8 sandbox; the engine feeds it
// activations, carries out its commands (timers, activities with their retry policy, child
// workflows, continue-as-new, patches) and writes the history a server would have written, so
// every run can be replayed by the real Core. It is not durable: the boot-time resumers restart
// the workflows of non-final objects after a restart.
import { randomUUID } from 'node:crypto';
import type { Info as ActivityInfo } from '@temporalio/activity';
import { CancelledFailure, defaultPayloadConverter, TerminatedFailure, TypedSearchAttributes, decompileRetryPolicy } from '@temporalio/common';
import type { WorkflowInfo } from '@temporalio/workflow';
import { createUnsafeRandomSource } from '@temporalio/workflow/lib/random-helpers';
import type { ActivityFunction, SearchAttributePair } from '@temporalio/common';
import { encodeUnifiedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes';
import { toPayloads } from '@temporalio/common/lib/converter/payload-converter';
import { msNumberToTs, optionalTsToMs } from '@temporalio/common/lib/time';
import { coresdk, temporal } from '@temporalio/proto';
import type { Workflow } from '@temporalio/worker/lib/workflow/interface';
import type { ReusableVMWorkflowCreator } from '@temporalio/worker/lib/workflow/reusable-vm';
import { startAttempt } from './activity-runner';
import type { AttemptHandle, AttemptResult } from './activity-runner';
import { RealClock, VirtualClock } from './clock';
import type { Clock, ClockTimer, Fireable } from './clock';
import { activityCancelledFailure, activityFailure, childFailure, errorToFailure, failureToError, retryState, startToCloseTimeoutFailure } from './failures';
import type { ActivityRef, ChildRef, RetryStateName } from './failures';
import { ENGINE_IDENTITY, HistoryRecorder } from './history';
import { buildActivation, buildQueryActivation } from './jobs';
import type { Job } from './jobs';
import { silentLog } from './log';
import type { EngineLog } from './log';
import { decideRetry } from './retry';
import type { FailureObject, Loose } from './proto';
import { createWorkflowCreator } from './sandbox';
import { bundleWorkflows, type WorkflowBundle } from './workflow-bundle';
import { ReplayLog } from './replay-log';
import { randomnessSeed, seedBytes } from './seed';
import {
  WorkflowBlockedError,
  WorkflowClosedError,
  WorkflowNotFoundError,
  WorkflowQueryFailedError,
  WorkflowTaskFailedError,
  WorkflowUpdateRejectedError,
} from '../../orchestration/errors';

const { EventType } = temporal.api.enums.v1;
/** A run whose next wake-up is at least this far off is evicted from the cache right away. */
const LONG_SLEEP_MS = 60_000;
const MAX_SHARED_SEARCH_ATTRIBUTE_SETS = 10_000;
type Command = coresdk.workflow_commands.IWorkflowCommand;
type Payload = temporal.api.common.v1.IPayload;
type Failure = FailureObject;

export type WorkflowStatus = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TERMINATED' | 'CONTINUED_AS_NEW';

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
   * Open workflows kept in the sandbox at once (2,000 unless stated), as a Temporal worker's
   * workflow cache does: beyond it the least recently used idle one is evicted, and a workflow
   * going to sleep for a minute or more is evicted right after its task. An evicted workflow's
   * sandbox (some 20 kB) is freed, and rebuilt by replaying the activations it was given when it
   * next has work.
   */
  maxCachedWorkflows?: number;
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

/**
 * A workflow timer, and its own clock callback: a sleeping run's timer is this one object (and the
 * clock's entry for it), not a closure with the scopes it keeps.
 */
class WorkflowTimer implements Fireable {
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

interface ActivityState {
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

interface ChildState {
  seq: number;
  ref: ChildRef;
  parentClosePolicy: number;
}

type Outcome =
  | { status: 'COMPLETED'; result?: Payload | null }
  | { status: 'FAILED'; failure: Failure }
  | { status: 'CANCELLED' }
  | { status: 'TERMINATED'; reason: string }
  | { status: 'CONTINUED_AS_NEW'; next: Run };

/** An update a caller waits on, from its delivery until its handler finishes. */
interface PendingUpdate {
  name: string;
  input: Payload[];
  resolve: (result: Payload | null | undefined) => void;
  reject: (err: Error) => void;
  /** Set once the workflow accepted it (its validator passed): its history event. */
  acceptedEventId?: number;
}

interface Delivery {
  /** A function when the job needs event ids that exist only once `record` has run. */
  job: Job | (() => Job);
  /** Writes the history event this job comes from, when the job is delivered. */
  record?: () => void;
}

/**
 * One run. Tens of thousands can be open at once (every checkout waits out its lifetime here), and
 * every major garbage collection traces each object they hold, so a sleeping run holds few: what
 * only a busy run needs (queued jobs, pending commands, close waiters, its turn's promise) exists
 * only while there is some, and what runs have in common (SDK flags, search attributes) is shared.
 */
class Run {
  readonly history = new HistoryRecorder();
  readonly replay = new ReplayLog();
  /** Jobs for the next workflow task. */
  inbox?: Delivery[];
  timers?: Map<number, WorkflowTimer>;
  activities?: Map<number, ActivityState>;
  children?: Map<number, ChildState>;
  /** The SDK's internal flags the run has used, ascending; an interned array (see withFlags). */
  flags: readonly number[] = NO_FLAGS;
  /** Shared with the other runs that have the same set until an upsert gives the run its own. */
  searchAttributes: Record<string, Payload>;
  workflow?: Workflow;
  status: WorkflowStatus = 'RUNNING';
  outcome?: Outcome;
  closeTime?: number;
  taskFailure?: Failure;
  cancelRequested = false;
  drainScheduled = false;
  /** Updates delivered and not yet finished, by update id (unset when there are none). */
  updates?: Map<string, PendingUpdate>;
  /** Serialises everything that enters this run's sandbox; unset when nothing is queued. */
  private tail?: Promise<unknown>;
  private closeWaiters?: Array<() => void>;

  constructor(
    readonly runId: string,
    readonly workflowId: string,
    readonly workflowType: string,
    readonly taskQueue: string,
    readonly startTime: number,
    searchAttributes: Record<string, Payload>,
    readonly parent?: { run: Run; seq: number },
    /** The run this one continues (continue-as-new). */
    readonly continuedFrom?: string,
  ) {
    this.searchAttributes = searchAttributes;
  }

  get open(): boolean {
    return this.status === 'RUNNING';
  }

  exclusive<T>(fn: () => Promise<T> | T): Promise<T> {
    const next = (this.tail ?? Promise.resolve()).then(fn);
    const settled: Promise<void> = next.then(
      () => this.release(settled),
      () => this.release(settled),
    );
    this.tail = settled;
    return next;
  }

  private release(settled: Promise<void>): void {
    if (this.tail === settled) this.tail = undefined;
  }

  close(outcome: Outcome, at: number): void {
    this.status = outcome.status;
    this.outcome = outcome;
    this.closeTime = at;
    this.wake();
  }

  /** Wakes result() waiters (also without closing: a workflow task failed). */
  wake(): void {
    const waiters = this.closeWaiters ?? [];
    this.closeWaiters = undefined;
    for (const resolve of waiters) resolve();
  }

  whenClosed(): Promise<void> {
    if (!this.open) return Promise.resolve();
    return new Promise((resolve) => (this.closeWaiters ??= []).push(resolve));
  }
}

/** A run's map of pending commands by seq with `value` set, made on its first entry. */
function withEntry<V>(map: Map<number, V> | undefined, seq: number, value: V): Map<number, V> {
  return (map ?? new Map<number, V>()).set(seq, value);
}

/** The map without `key`; undefined once empty, so a sleeping run does not keep an empty map. */
function withoutEntry<K, V>(map: Map<K, V> | undefined, key: K): Map<K, V> | undefined {
  map?.delete(key);
  return map?.size ? map : undefined;
}

const NO_FLAGS: readonly number[] = Object.freeze([]);
/** Each distinct set of flags once: in practice every run of one SDK version uses the same set. */
const flagSets = new Map<string, readonly number[]>();

/** `flags` with `used` added, ascending, interned. */
function withFlags(flags: readonly number[], used: readonly number[]): readonly number[] {
  if (used.every((flag) => flags.includes(flag))) return flags;
  const union = [...new Set([...flags, ...used])].sort((a, b) => a - b);
  const key = union.join(',');
  let interned = flagSets.get(key);
  if (interned === undefined) flagSets.set(key, (interned = Object.freeze(union)));
  return interned;
}

/**
 * A timer started and cancelled in the same workflow task never reaches the server: Core drops
 * both commands, so the history must not show them either.
 */
function dropCancelledTimers(commands: Command[]): void {
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

export class EmbeddedEngine {
  readonly clock: Clock;
  readonly namespace: string;
  readonly taskQueue: string;
  private readonly log: EngineLog;
  private readonly hungActivityAfterMs: number;
  private readonly keepClosedHistory: boolean;
  private readonly maxCachedWorkflows: number;
  /** Open runs whose sandbox is alive, least recently used first. */
  private readonly cached = new Set<Run>();
  private readonly runs = new Map<string, Run>();
  private readonly latest = new Map<string, Run>();
  /** Work in progress: activations (quick) and activity attempts (may take real time). */
  private readonly activations = new Set<Promise<unknown>>();
  private readonly attempts = new Set<Promise<unknown>>();
  private fatal?: unknown;
  private stopped = false;

  private constructor(
    private readonly creator: ReusableVMWorkflowCreator,
    readonly bundle: WorkflowBundle,
    private readonly activityFns: Record<string, ActivityFunction>,
    options: EngineOptions,
  ) {
    this.clock = options.clock === 'real' ? new RealClock() : options.clock === 'virtual' ? new VirtualClock() : options.clock;
    this.namespace = options.namespace ?? 'default';
    this.taskQueue = options.taskQueue ?? 'kasi';
    this.log = options.log ?? silentLog;
    this.hungActivityAfterMs = options.hungActivityAfterMs ?? 2_000;
    this.keepClosedHistory = options.keepClosedHistory ?? this.clock.kind === 'virtual';
    this.maxCachedWorkflows = options.maxCachedWorkflows ?? 2_000;
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

  // ---------------------------------------------------------------- client side

  /** Starts a workflow; with the id already running (or closed, when reuse is rejected) it is a no-op. */
  start(options: EngineStartOptions): { runId: string; started: boolean } {
    this.assertRunning();
    const existing = this.latest.get(options.workflowId);
    if (existing && (existing.open || options.idReusePolicy !== 'allow-duplicate')) {
      return { runId: existing.runId, started: false };
    }
    const run = this.createRun(options, {});
    return { runId: run.runId, started: true };
  }

  /**
   * Signals a running workflow, or starts it with the signal in its first activation. A closed one
   * is started again only when reuse is allowed; otherwise, as a server refuses the start, nothing
   * happens: no run, no signal.
   */
  async signalWithStart(options: EngineStartOptions, signalName: string, args: unknown[] = []): Promise<{ runId: string; started: boolean }> {
    this.assertRunning();
    const existing = this.latest.get(options.workflowId);
    if (existing?.open) {
      await this.signal(options.workflowId, signalName, args);
      return { runId: existing.runId, started: false };
    }
    if (existing && options.idReusePolicy !== 'allow-duplicate') return { runId: existing.runId, started: false };
    const run = this.createRun(options, {}, (r) => this.signalDelivery(r, signalName, args));
    return { runId: run.runId, started: true };
  }

  async signal(workflowId: string, signalName: string, args: unknown[] = []): Promise<void> {
    const run = this.openRun(workflowId);
    // Through the run's queue, so a signal never lands between a workflow task and its commands.
    await run.exclusive(() => {
      if (!run.open) throw new WorkflowClosedError(workflowId);
      this.deliver(run, this.signalDelivery(run, signalName, args));
    });
  }

  /**
   * Runs an update and waits for its handler's result. It goes through the run's queue like a
   * signal; the validator's rejection (or the handler's failure) rejects with
   * WorkflowUpdateRejectedError, and a workflow that closes before the handler finishes with
   * WorkflowClosedError.
   */
  async update<R = unknown>(workflowId: string, updateName: string, args: unknown[] = []): Promise<R> {
    const run = this.openRun(workflowId);
    const updateId = randomUUID();
    const input = toPayloads(defaultPayloadConverter, ...args) ?? [];
    const result = await new Promise<Payload | null | undefined>((resolve, reject) => {
      run
        .exclusive(() => {
          if (!run.open) throw new WorkflowClosedError(workflowId);
          if (run.taskFailure) throw new WorkflowTaskFailedError(workflowId, failureToError(run.taskFailure));
          (run.updates ??= new Map()).set(updateId, { name: updateName, input, resolve, reject });
          // No event yet: the server writes one only when the workflow accepts the update.
          this.deliver(run, {
            job: { doUpdate: { id: updateId, protocolInstanceId: updateId, name: updateName, input, headers: {}, meta: { updateId, identity: ENGINE_IDENTITY }, runValidator: true } },
          });
        })
        .catch(reject);
    });
    return (result ? defaultPayloadConverter.fromPayload(result) : undefined) as R;
  }

  async query<T = unknown>(workflowId: string, queryType: string, args: unknown[] = []): Promise<T> {
    const run = this.latest.get(workflowId);
    if (run === undefined) throw new WorkflowNotFoundError(workflowId);
    return run.exclusive(async () => {
      if (run.workflow === undefined && !run.open) throw new WorkflowQueryFailedError(workflowId, queryType, `workflow ${workflowId} is closed; the embedded engine answers queries on open workflows only`);
      // A run whose task failed is not rebuilt: it would fail the same way.
      const workflow = run.workflow ?? (run.taskFailure ? undefined : await this.rehydrate(run));
      if (workflow === undefined) throw new WorkflowQueryFailedError(workflowId, queryType, `workflow ${workflowId} is stuck on a failed task: ${run.taskFailure?.message ?? 'unknown'}`);
      this.touch(run);
      const queryId = randomUUID();
      const completion = await workflow.activate(buildQueryActivation(run.runId, queryId, queryType, toPayloads(defaultPayloadConverter, ...args) ?? []));
      await this.forwardSinkCalls(run);
      const answer = completion.successful?.commands?.find((c) => c.respondToQuery?.queryId === queryId)?.respondToQuery;
      if (answer?.succeeded) return defaultPayloadConverter.fromPayload<T>(answer.succeeded.response ?? {});
      const message = answer?.failed?.message ?? completion.failed?.failure?.message ?? 'no answer';
      throw new WorkflowQueryFailedError(workflowId, queryType, message);
    });
  }

  async cancel(workflowId: string): Promise<void> {
    const run = this.openRun(workflowId);
    await run.exclusive(() => {
      if (!run.open || run.cancelRequested) return;
      run.cancelRequested = true;
      this.deliver(run, {
        job: { cancelWorkflow: { reason: 'cancel requested' } },
        record: () =>
          run.history.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED, this.clock.now(), {
            workflowExecutionCancelRequestedEventAttributes: { cause: 'cancel requested', identity: ENGINE_IDENTITY },
          }),
      });
    });
  }

  describe(workflowId: string): RunDescription | undefined {
    const run = this.latest.get(workflowId);
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
      const run = this.latest.get(workflowId);
      if (run === undefined) throw new WorkflowNotFoundError(workflowId);
      if (run.taskFailure) throw new WorkflowTaskFailedError(workflowId, failureToError(run.taskFailure));
      if (run.outcome && run.outcome.status !== 'CONTINUED_AS_NEW') return this.unwrap<T>(run);
      if (run.outcome === undefined) {
        if (this.clock instanceof VirtualClock) {
          await this.settle();
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
      await this.settle();
      const next = clock.nextDueAt();
      if (next === undefined || next > target) break;
      clock.moveTo(next);
    }
    clock.moveTo(target);
    await this.settle();
  }

  /** Waits until no activation is pending and no activity is running (hung ones aside). */
  async runUntilIdle(): Promise<void> {
    await this.settle();
  }

  /** The history a server would hold for the run (the latest run of the id by default). */
  exportHistory(workflowId: string, runId?: string): temporal.api.history.v1.History {
    const run = runId ? this.runs.get(runId) : this.latest.get(workflowId);
    if (run === undefined || run.workflowId !== workflowId) throw new WorkflowNotFoundError(workflowId);
    return run.history.toHistory();
  }

  /** Every run id of a workflow id, oldest first (a continue-as-new chain). */
  runIds(workflowId: string): string[] {
    return [...this.runs.values()].filter((r) => r.workflowId === workflowId).map((r) => r.runId);
  }

  get openWorkflowCount(): number {
    let count = 0;
    for (const run of this.latest.values()) if (run.open) count++;
    return count;
  }

  async shutdown(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.clock.clear();
    for (const run of this.runs.values()) {
      for (const activity of run.activities?.values() ?? []) activity.attemptHandle?.cancel('CANCELLED');
    }
    // Attempts are told to stop but not waited for: an activity may ignore cancellation.
    await Promise.allSettled([...this.activations]);
    for (const run of this.runs.values()) await this.disposeSandbox(run);
    await this.creator.destroy();
  }

  // ---------------------------------------------------------------- runs

  private createRun(
    options: EngineStartOptions,
    continued: { from?: Run; args?: Payload[] },
    withFirst?: (run: Run) => Delivery,
    parent?: { run: Run; seq: number },
  ): Run {
    const now = this.clock.now();
    const runId = randomUUID();
    const firstRunId = continued.from ? (this.firstRunId(continued.from) ?? continued.from.runId) : runId;
    const searchAttributes = continued.from?.searchAttributes ?? this.encodedSearchAttributes(options.searchAttributes ?? []);
    const run = new Run(runId, options.workflowId, options.workflowType, options.taskQueue ?? this.taskQueue, now, searchAttributes, parent, continued.from?.runId);
    this.firstRunIds.set(runId, firstRunId);
    this.runs.set(runId, run);
    this.latest.set(options.workflowId, run);
    const input = continued.args ?? toPayloads(defaultPayloadConverter, ...(options.args ?? [])) ?? [];
    const seed = randomnessSeed(runId);
    const parentInfo = parent ? { namespace: this.namespace, workflowId: parent.run.workflowId, runId: parent.run.runId } : undefined;
    const init: Job = {
      initializeWorkflow: {
        workflowType: run.workflowType,
        workflowId: run.workflowId,
        arguments: input,
        randomnessSeed: seed,
        headers: {},
        identity: ENGINE_IDENTITY,
        parentWorkflowInfo: parentInfo,
        workflowTaskTimeout: msNumberToTs(10_000),
        continuedFromExecutionRunId: continued.from?.runId ?? '',
        firstExecutionRunId: firstRunId,
        attempt: 1,
        searchAttributes: { indexedFields: searchAttributes },
        startTime: msNumberToTs(now),
        rootWorkflow: { workflowId: this.rootOf(run).workflowId, runId: this.rootOf(run).runId },
      },
    };
    const record = (): void => {
      run.history.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, now, {
        workflowExecutionStartedEventAttributes: {
          workflowId: run.workflowId,
          workflowType: { name: run.workflowType },
          taskQueue: { name: run.taskQueue },
          input: { payloads: input },
          workflowTaskTimeout: msNumberToTs(10_000),
          continuedExecutionRunId: continued.from?.runId ?? '',
          initiator: continued.from ? temporal.api.enums.v1.ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_WORKFLOW : undefined,
          originalExecutionRunId: runId,
          firstExecutionRunId: firstRunId,
          identity: ENGINE_IDENTITY,
          attempt: 1,
          header: {},
          searchAttributes: { indexedFields: searchAttributes },
          parentWorkflowNamespace: parentInfo?.namespace,
          parentWorkflowExecution: parentInfo ? { workflowId: parentInfo.workflowId, runId: parentInfo.runId } : undefined,
          parentInitiatedEventId: parent ? parent.run.children?.get(parent.seq)?.ref.initiatedEventId : undefined,
        },
      });
    };
    const deliveries: Delivery[] = [{ job: init, record }];
    if (withFirst) deliveries.push(withFirst(run));
    // The first task makes the sandbox (from an empty replay log), so making it, activating it and
    // evicting it run back to back: each switch of the shared context's globals costs a scan.
    for (const delivery of deliveries) this.deliver(run, delivery);
    return run;
  }

  /**
   * Creates the run's sandbox: at its first task, and again after each eviction. Everything it
   * needs is derived from the run (the seed from the run id, as createRun derived it), so a
   * sleeping run keeps no closure, scope or seed for it.
   */
  private createSandbox(run: Run): Promise<Workflow> {
    const parent = run.parent ? { namespace: this.namespace, workflowId: run.parent.run.workflowId, runId: run.parent.run.runId } : undefined;
    return this.creator.createWorkflow({
      info: this.workflowInfo(run, this.firstRunId(run) ?? run.runId, run.continuedFrom, parent),
      randomnessSeed: seedBytes(randomnessSeed(run.runId)),
      now: run.startTime,
      showStackTraceSources: false,
    });
  }

  /**
   * Search attributes encoded once per distinct set and shared by the runs that have it (all of a
   * merchant's checkouts do): a run's payloads stay as they were encoded, and an upsert gives the run
   * a copy of its own, so sharing them saves each open run its own.
   */
  private readonly searchAttributeSets = new Map<string, Record<string, Payload>>();
  private encodedSearchAttributes(pairs: SearchAttributePair[]): Record<string, Payload> {
    const key = JSON.stringify(pairs.map(({ key: { name, type }, value }) => [name, type, value]));
    let encoded = this.searchAttributeSets.get(key);
    if (encoded === undefined) {
      // Bounded: past it, sets are encoded afresh rather than remembered.
      encoded = encodeUnifiedSearchAttributes(undefined, pairs);
      if (this.searchAttributeSets.size < MAX_SHARED_SEARCH_ATTRIBUTE_SETS) this.searchAttributeSets.set(key, encoded);
    }
    return encoded;
  }

  private readonly firstRunIds = new Map<string, string>();

  private firstRunId(run: Run): string | undefined {
    return this.firstRunIds.get(run.runId);
  }

  private rootOf(run: Run): Run {
    return run.parent ? this.rootOf(run.parent.run) : run;
  }

  private workflowInfo(run: Run, firstRunId: string, continuedFrom: string | undefined, parent: { namespace: string; workflowId: string; runId: string } | undefined): WorkflowInfo {
    const root = this.rootOf(run);
    return {
      workflowId: run.workflowId,
      runId: run.runId,
      workflowType: run.workflowType,
      searchAttributes: {},
      typedSearchAttributes: new TypedSearchAttributes(),
      parent,
      root: run.parent ? { workflowId: root.workflowId, runId: root.runId } : undefined,
      taskQueue: run.taskQueue,
      namespace: this.namespace,
      firstExecutionRunId: firstRunId,
      originalExecutionRunId: run.runId,
      continuedFromExecutionRunId: continuedFrom,
      startTime: new Date(run.startTime),
      runStartTime: new Date(run.startTime),
      taskTimeoutMs: 10_000,
      attempt: 1,
      historyLength: 0,
      historySize: 0,
      continueAsNewSuggested: false,
      targetWorkerDeploymentVersionChanged: false,
      suggestedContinueAsNewReasons: undefined,
      currentBuildId: '',
      unsafe: { now: () => this.clock.now(), isReplaying: false, isReplayingHistoryEvents: false, random: createUnsafeRandomSource(Math.random) },
      priority: undefined,
    };
  }

  private openRun(workflowId: string): Run {
    const run = this.latest.get(workflowId);
    if (run === undefined) throw new WorkflowNotFoundError(workflowId);
    if (!run.open) throw new WorkflowClosedError(workflowId);
    return run;
  }

  private signalDelivery(run: Run, signalName: string, args: unknown[]): Delivery {
    const input = toPayloads(defaultPayloadConverter, ...args) ?? [];
    return {
      job: { signalWorkflow: { signalName, input, identity: ENGINE_IDENTITY, headers: {} } },
      record: () =>
        run.history.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, this.clock.now(), {
          workflowExecutionSignaledEventAttributes: { signalName, input: { payloads: input }, identity: ENGINE_IDENTITY, header: {} },
        }),
    };
  }

  /** Queues a job for the run's next workflow task. */
  private deliver(run: Run, delivery: Delivery): void {
    if (!run.open || this.stopped) return;
    (run.inbox ??= []).push(delivery);
    if (run.drainScheduled) return;
    run.drainScheduled = true;
    this.track(
      run.exclusive(() => this.drain(run)),
      this.activations,
    );
  }

  // ---------------------------------------------------------------- workflow tasks

  private async drain(run: Run): Promise<void> {
    run.drainScheduled = false;
    while (run.inbox && run.open && !run.taskFailure) {
      const workflow = run.workflow ?? (await this.rehydrate(run));
      if (workflow === undefined) return;
      const deliveries = run.inbox ?? [];
      run.inbox = undefined;
      for (const delivery of deliveries) delivery.record?.();
      const now = this.clock.now();
      const task = run.history.workflowTaskStarted(now, run.taskQueue);
      const commands: Command[] = [];
      let activations = 0;
      let jobs = deliveries.map((d) => (typeof d.job === 'function' ? d.job() : d.job));
      // One workflow task may take several activations: Core resolves some commands on its own
      // (an activity cancelled with TRY_CANCEL) and activates again before answering the server.
      while (jobs.length > 0) {
        const activation = buildActivation(run.runId, now, task.startedEventId, [...run.flags], jobs);
        // Activations of different runs overlap, as on a Temporal worker: each waits out one turn
        // of the event loop after it concludes (the SDK's check for unhandled rejections), and
        // taking them one at a time let only one finish per turn, so under load the engine fell
        // seconds behind the API, its sandboxes piling up.
        const completion = await workflow.activate(activation);
        await this.forwardSinkCalls(run);
        if (completion.failed || !completion.successful) {
          this.failTask(run, completion.failed?.failure ?? { message: 'activation returned no completion' });
          return;
        }
        run.flags = withFlags(run.flags, completion.successful.usedInternalFlags ?? []);
        const produced = completion.successful.commands ?? [];
        run.replay.push(activation, produced.length);
        activations++;
        jobs = this.resolveLocally(run, produced, commands);
        commands.push(...produced);
      }
      dropCancelledTimers(commands);
      if (this.onlyRejectsUpdates(run, deliveries, commands)) {
        // The server ran this task speculatively and, with every update rejected, drops it: no
        // event in history, and nothing for a rebuilt sandbox to replay (a validator changes no state).
        run.history.truncate(task.scheduledEventId - 1);
        run.replay.dropLast(activations);
        for (const command of commands) this.respondToUpdate(run, command.updateResponse ?? {}, task.scheduledEventId);
        continue;
      }
      const unsupported = commands.find((c) => !this.isSupported(c));
      if (unsupported) {
        this.failTask(run, { message: `the embedded engine does not support the command ${Object.keys(unsupported).filter((k) => k !== 'userMetadata').join(', ')}` });
        return;
      }
      const completedEventId = run.history.workflowTaskCompleted(now, task, [...run.flags]);
      for (const command of commands) {
        if (!run.open) break;
        if (command.updateResponse) this.respondToUpdate(run, command.updateResponse, task.scheduledEventId);
        else this.apply(run, command, completedEventId);
      }
    }
    await this.afterTask(run);
  }

  /** A task of update requests alone (no event brought it) whose every answer is a rejection. */
  private onlyRejectsUpdates(run: Run, deliveries: Delivery[], commands: Command[]): boolean {
    if (commands.length === 0 || deliveries.some((d) => d.record)) return false;
    return commands.every((c) => c.updateResponse?.rejected && run.updates?.get(c.updateResponse.protocolInstanceId ?? '')?.acceptedEventId === undefined);
  }

  /**
   * The workflow's answer to an update, as the server records it: acceptance writes
   * WorkflowExecutionUpdateAccepted with the request (Core replays the update from it; the request
   * is sequenced at the task's scheduled event, as the server sends it with that task), completion
   * or a handler's failure WorkflowExecutionUpdateCompleted. A validator's rejection writes nothing.
   */
  private respondToUpdate(run: Run, response: coresdk.workflow_commands.IUpdateResponse, scheduledEventId: number): void {
    const updateId = response.protocolInstanceId ?? '';
    const pending = run.updates?.get(updateId);
    if (pending === undefined) return;
    const meta = { updateId, identity: ENGINE_IDENTITY };
    const now = this.clock.now();
    if (response.accepted) {
      pending.acceptedEventId = run.history.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED, now, {
        workflowExecutionUpdateAcceptedEventAttributes: {
          protocolInstanceId: updateId,
          acceptedRequestMessageId: `${updateId}/request`,
          acceptedRequestSequencingEventId: scheduledEventId,
          acceptedRequest: { meta, input: { header: {}, name: pending.name, args: { payloads: pending.input } } },
        },
      });
      return;
    }
    run.updates = withoutEntry(run.updates, updateId);
    if (pending.acceptedEventId !== undefined) {
      run.history.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED, now, {
        workflowExecutionUpdateCompletedEventAttributes: {
          meta,
          acceptedEventId: pending.acceptedEventId,
          outcome: response.rejected ? { failure: response.rejected } : { success: { payloads: response.completed ? [response.completed] : [] } },
        },
      });
    }
    if (response.rejected) pending.reject(new WorkflowUpdateRejectedError(run.workflowId, pending.name, failureToError(response.rejected)));
    else pending.resolve(response.completed);
  }

  /** Answers every waiting update caller with `error` (the run closed, or is stuck). */
  private abandonUpdates(run: Run, error: () => Error): void {
    const updates = run.updates;
    run.updates = undefined;
    for (const pending of updates?.values() ?? []) pending.reject(error());
  }

  /**
   * Rebuilds an evicted run's sandbox: a new one, given every activation the run was given, in
   * order. Workflow code is deterministic, so it ends where the run was; its commands were carried
   * out the first time and are dropped, as are its log calls. A different number of commands means
   * the code is not deterministic: the run's task fails, loudly.
   */
  private async rehydrate(run: Run): Promise<Workflow | undefined> {
    let workflow: Workflow;
    try {
      workflow = await this.createSandbox(run);
    } catch (err) {
      this.failTask(run, errorToFailure(err));
      return undefined;
    }
    for (const { activation, commandCount } of run.replay.records()) {
      const completion = await workflow.activate(activation);
      await workflow.getAndResetSinkCalls();
      const produced = completion.successful?.commands?.length;
      if (produced !== commandCount) {
        await workflow.dispose();
        this.failTask(run, completion.failed?.failure ?? {
          message: `rebuilding ${run.workflowType} ${run.workflowId} after its eviction gave ${produced ?? 'no'} commands where the run gave ${commandCount}: the workflow code is not deterministic`,
        });
        return undefined;
      }
    }
    run.workflow = workflow;
    return workflow;
  }

  /**
   * After a run's task (inside its turn): a run that will sleep long (only timers a minute or more
   * away, or signals, to wait for) is evicted at once, while its sandbox is still young garbage and
   * cheap to collect; the others are marked as just used.
   */
  private async afterTask(run: Run): Promise<void> {
    if (!run.open || run.workflow === undefined) return;
    if (!this.sleepsLong(run)) {
      this.touch(run);
      return;
    }
    this.cached.delete(run);
    await this.disposeSandbox(run);
  }

  /** Marks the run as just used; evicts the least recently used idle runs past the cache size. */
  private touch(run: Run): void {
    if (!run.open) return;
    this.cached.delete(run);
    this.cached.add(run);
    for (const oldest of this.cached) {
      if (this.cached.size <= this.maxCachedWorkflows) break;
      this.cached.delete(oldest);
      this.evictWhenIdle(oldest);
    }
  }

  private sleepsLong(run: Run): boolean {
    if (run.activities || run.children || run.inbox) return false;
    const wakeAfter = this.clock.now() + LONG_SLEEP_MS;
    for (const { timer } of run.timers?.values() ?? []) if (timer.dueAt < wakeAfter) return false;
    return true;
  }

  private evictWhenIdle(run: Run): void {
    this.track(
      run.exclusive(async () => {
        // Work arrived meanwhile: it keeps its sandbox (and is looked at again after its task).
        if (run.drainScheduled || run.inbox || !run.open) return;
        await this.disposeSandbox(run);
      }),
      this.activations,
    );
  }

  /**
   * Jobs Core would produce itself in the same workflow task: activities cancelled with TRY_CANCEL
   * or ABANDON resolve at once. An activity scheduled and cancelled in the same task never reaches
   * the server: both commands are dropped.
   */
  private resolveLocally(run: Run, produced: Command[], earlier: Command[]): Job[] {
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
      if (state.command.cancellationType !== coresdk.workflow_commands.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED) {
        jobs.push({ resolveActivity: { seq, result: { cancelled: { failure: activityCancelledFailure(state.ref) } } } });
      }
    }
    return jobs;
  }

  private isSupported(command: Command): boolean {
    return Boolean(
      command.startTimer ||
        command.cancelTimer ||
        command.scheduleActivity ||
        command.requestCancelActivity ||
        command.completeWorkflowExecution ||
        command.failWorkflowExecution ||
        command.cancelWorkflowExecution ||
        command.continueAsNewWorkflowExecution ||
        command.setPatchMarker ||
        command.upsertWorkflowSearchAttributes ||
        command.startChildWorkflowExecution ||
        command.updateResponse ||
        // Emptied by resolveLocally: a schedule-and-cancel pair that never reaches the server.
        Object.values(command).every((v) => v == null),
    );
  }

  /** A workflow timer is due: the run's next task gets its fireTimer job. One function for all timers. */
  private readonly timerFired = (timer: WorkflowTimer): void => {
    const { run, seq, startedEventId } = timer;
    run.timers = withoutEntry(run.timers, seq);
    this.deliver(run, {
      job: { fireTimer: { seq } },
      record: () => run.history.add(EventType.EVENT_TYPE_TIMER_FIRED, this.clock.now(), { timerFiredEventAttributes: { timerId: String(seq), startedEventId } }),
    });
  };

  private apply(run: Run, command: Command, completedEventId: number): void {
    const now = this.clock.now();
    const h = run.history;
    if (command.startTimer) {
      const seq = command.startTimer.seq ?? 0;
      const timerId = String(seq);
      const startToFireTimeout = command.startTimer.startToFireTimeout;
      const startedEventId = h.add(EventType.EVENT_TYPE_TIMER_STARTED, now, {
        timerStartedEventAttributes: { timerId, startToFireTimeout, workflowTaskCompletedEventId: completedEventId },
      });
      const timer = new WorkflowTimer(run, seq, startedEventId, now + (optionalTsToMs(startToFireTimeout) ?? 0), this.clock, this.timerFired);
      run.timers = withEntry(run.timers, seq, timer);
    } else if (command.cancelTimer) {
      const seq = command.cancelTimer.seq ?? 0;
      const state = run.timers?.get(seq);
      if (state === undefined) return;
      this.clock.cancel(state.timer);
      run.timers = withoutEntry(run.timers, seq);
      h.add(EventType.EVENT_TYPE_TIMER_CANCELED, now, {
        timerCanceledEventAttributes: { timerId: String(seq), startedEventId: state.startedEventId, workflowTaskCompletedEventId: completedEventId, identity: ENGINE_IDENTITY },
      });
    } else if (command.scheduleActivity) {
      this.scheduleActivity(run, command.scheduleActivity, completedEventId);
    } else if (command.requestCancelActivity) {
      this.cancelActivity(run, command.requestCancelActivity.seq ?? 0, completedEventId);
    } else if (command.setPatchMarker) {
      const { patchId, deprecated } = command.setPatchMarker;
      h.add(EventType.EVENT_TYPE_MARKER_RECORDED, now, {
        markerRecordedEventAttributes: {
          markerName: 'core_patch',
          // Core's original marker encoding, which every Core since reads (newer ones try JSON first).
          details: {
            patch_id: { payloads: [{ metadata: {}, data: new TextEncoder().encode(patchId ?? '') }] },
            deprecated: { payloads: [{ metadata: {}, data: Uint8Array.of(deprecated ? 1 : 0) }] },
          },
          workflowTaskCompletedEventId: completedEventId,
        },
      });
    } else if (command.upsertWorkflowSearchAttributes) {
      const fields = command.upsertWorkflowSearchAttributes.searchAttributes?.indexedFields ?? {};
      run.searchAttributes = { ...run.searchAttributes, ...fields };
      h.add(EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, now, {
        upsertWorkflowSearchAttributesEventAttributes: { workflowTaskCompletedEventId: completedEventId, searchAttributes: { indexedFields: fields } },
      });
    } else if (command.startChildWorkflowExecution) {
      this.startChild(run, command.startChildWorkflowExecution, completedEventId);
    } else if (command.completeWorkflowExecution) {
      const result = command.completeWorkflowExecution.result;
      h.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, now, {
        workflowExecutionCompletedEventAttributes: { result: result ? { payloads: [result] } : undefined, workflowTaskCompletedEventId: completedEventId },
      });
      this.closeRun(run, { status: 'COMPLETED', result });
    } else if (command.failWorkflowExecution) {
      const failure = command.failWorkflowExecution.failure ?? { message: 'workflow failed' };
      h.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED, now, {
        workflowExecutionFailedEventAttributes: {
          failure,
          retryState: retryState('RETRY_POLICY_NOT_SET'),
          workflowTaskCompletedEventId: completedEventId,
        },
      });
      this.closeRun(run, { status: 'FAILED', failure });
    } else if (command.cancelWorkflowExecution) {
      h.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED, now, {
        workflowExecutionCanceledEventAttributes: { workflowTaskCompletedEventId: completedEventId },
      });
      this.closeRun(run, { status: 'CANCELLED' });
    } else if (command.continueAsNewWorkflowExecution) {
      this.continueAsNew(run, command.continueAsNewWorkflowExecution, completedEventId);
    }
  }

  // ---------------------------------------------------------------- activities

  private scheduleActivity(run: Run, command: coresdk.workflow_commands.IScheduleActivity, completedEventId: number): void {
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

  private runAttempt(run: Run, state: ActivityState): void {
    const now = this.clock.now();
    const { command } = state;
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
      namespace: this.namespace,
      inWorkflow: true,
    };
    const handle = startAttempt(this.activityFns[state.ref.activityType], info, command.arguments ?? [], this.log);
    state.attemptHandle = handle;
    const attempt = state.attempt;
    const settle = (result: AttemptResult): void => {
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
    this.track(
      handle.result.then(settle, (err: unknown) => settle({ failed: { failure: { message: String(err) } } })),
      this.attempts,
    );
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
      this.finishActivity(run, state, result, decision.retryState);
      return;
    }
    this.finishActivity(run, state, result, 'RETRY_POLICY_NOT_SET');
  }

  private finishActivity(run: Run, state: ActivityState, result: AttemptResult, rs: RetryStateName): void {
    state.done = true;
    run.activities = withoutEntry(run.activities, state.seq);
    const h = run.history;
    const { seq, ref } = state;
    this.deliver(run, {
      job: () => ({ resolveActivity: { seq, result: this.activityResolution(state, result, rs) } }),
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
  private activityResolution(state: ActivityState, result: AttemptResult, rs: RetryStateName): Loose<coresdk.activity_result.IActivityResolution> {
    const ref = state.ref;
    const resolution: Loose<coresdk.activity_result.IActivityResolution> = {};
    if ('completed' in result) resolution.completed = { result: result.completed.result };
    else if ('cancelled' in result) resolution.cancelled = { failure: activityCancelledFailure(ref) };
    else resolution.failed = { failure: activityFailure(ref, result.failed.failure, rs) };
    return resolution;
  }

  private cancelActivity(run: Run, seq: number, completedEventId: number): void {
    const state = run.activities?.get(seq);
    if (state === undefined || state.done) return;
    const type = state.command.cancellationType ?? 0;
    const { ActivityCancellationType } = coresdk.workflow_commands;
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
    else this.finishActivity(run, state, { cancelled: {} }, 'CANCEL_REQUESTED');
  }

  // ---------------------------------------------------------------- children and continue-as-new

  private startChild(run: Run, command: coresdk.workflow_commands.IStartChildWorkflowExecution, completedEventId: number): void {
    const now = this.clock.now();
    const seq = command.seq ?? 0;
    const workflowId = command.workflowId ?? '';
    const workflowType = command.workflowType ?? '';
    const h = run.history;
    const initiatedEventId = h.add(EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED, now, {
      startChildWorkflowExecutionInitiatedEventAttributes: {
        namespace: this.namespace,
        workflowId,
        workflowType: { name: workflowType },
        taskQueue: { name: command.taskQueue || run.taskQueue },
        input: { payloads: command.input ?? [] },
        workflowTaskCompletedEventId: completedEventId,
        parentClosePolicy: command.parentClosePolicy ?? undefined,
        workflowIdReusePolicy: command.workflowIdReusePolicy ?? undefined,
        header: { fields: command.headers ?? {} },
        workflowTaskTimeout: msNumberToTs(10_000),
      },
    });
    const existing = this.latest.get(workflowId);
    if (existing?.open) {
      this.deliver(run, {
        job: {
          resolveChildWorkflowExecutionStart: {
            seq,
            failed: { workflowId, workflowType, cause: coresdk.child_workflow.StartChildWorkflowExecutionFailedCause.START_CHILD_WORKFLOW_EXECUTION_FAILED_CAUSE_WORKFLOW_ALREADY_EXISTS },
          },
        },
        record: () =>
          h.add(EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_FAILED, this.clock.now(), {
            startChildWorkflowExecutionFailedEventAttributes: {
              namespace: this.namespace,
              workflowId,
              workflowType: { name: workflowType },
              cause: temporal.api.enums.v1.StartChildWorkflowExecutionFailedCause.START_CHILD_WORKFLOW_EXECUTION_FAILED_CAUSE_WORKFLOW_ALREADY_EXISTS,
              initiatedEventId,
              workflowTaskCompletedEventId: completedEventId,
            },
          }),
      });
      return;
    }
    const child: ChildState = {
      seq,
      ref: { namespace: this.namespace, workflowId, runId: '', workflowType, initiatedEventId, startedEventId: 0 },
      parentClosePolicy: command.parentClosePolicy ?? 0,
    };
    run.children = withEntry(run.children, seq, child);
    const childRun = this.createRun(
      { workflowId, workflowType, taskQueue: command.taskQueue || run.taskQueue, idReusePolicy: 'allow-duplicate' },
      { args: command.input ?? [] },
      undefined,
      { run, seq },
    );
    child.ref.runId = childRun.runId;
    this.deliver(run, {
      job: { resolveChildWorkflowExecutionStart: { seq, succeeded: { runId: childRun.runId } } },
      record: () => {
        child.ref.startedEventId = h.add(EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED, this.clock.now(), {
          childWorkflowExecutionStartedEventAttributes: {
            namespace: this.namespace,
            initiatedEventId,
            workflowExecution: { workflowId, runId: childRun.runId },
            workflowType: { name: workflowType },
            header: {},
          },
        });
      },
    });
  }

  /** A child's chain of runs closed: resolve the parent's wait and write the parent's event. */
  private childClosed(parent: Run, seq: number, outcome: Outcome): void {
    const child = parent.children?.get(seq);
    if (child === undefined) return;
    parent.children = withoutEntry(parent.children, seq);
    const ref = child.ref;
    const h = parent.history;
    const execution = { workflowId: ref.workflowId, runId: ref.runId };
    const common = () => ({
      namespace: this.namespace,
      workflowExecution: execution,
      workflowType: { name: ref.workflowType },
      initiatedEventId: ref.initiatedEventId,
      startedEventId: ref.startedEventId,
    });
    let result: Loose<coresdk.child_workflow.IChildWorkflowResult>;
    let record: () => void;
    if (outcome.status === 'COMPLETED') {
      result = { completed: { result: outcome.result } };
      record = () =>
        h.add(EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED, this.clock.now(), {
          childWorkflowExecutionCompletedEventAttributes: { ...common(), result: outcome.result ? { payloads: [outcome.result] } : undefined },
        });
    } else if (outcome.status === 'FAILED') {
      result = { failed: { failure: childFailure(ref, 'Child Workflow execution failed', outcome.failure, 'RETRY_POLICY_NOT_SET') } };
      record = () =>
        h.add(EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED, this.clock.now(), {
          childWorkflowExecutionFailedEventAttributes: { ...common(), failure: outcome.failure, retryState: retryState('RETRY_POLICY_NOT_SET') },
        });
    } else if (outcome.status === 'CANCELLED') {
      result = { cancelled: { failure: childFailure(ref, 'Child Workflow execution cancelled', { message: 'cancelled', canceledFailureInfo: {} }, 'CANCEL_REQUESTED') } };
      record = () => h.add(EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED, this.clock.now(), { childWorkflowExecutionCanceledEventAttributes: common() });
    } else {
      result = { failed: { failure: childFailure(ref, 'Child Workflow execution terminated', { message: 'terminated', terminatedFailureInfo: {} }, 'NON_RETRYABLE_FAILURE') } };
      record = () => h.add(EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED, this.clock.now(), { childWorkflowExecutionTerminatedEventAttributes: common() });
    }
    this.deliver(parent, { job: { resolveChildWorkflowExecution: { seq, result } }, record });
  }

  private continueAsNew(run: Run, command: coresdk.workflow_commands.IContinueAsNewWorkflowExecution, completedEventId: number): void {
    const next = this.createRun(
      { workflowId: run.workflowId, workflowType: command.workflowType || run.workflowType, taskQueue: command.taskQueue || run.taskQueue },
      { from: run, args: command.arguments ?? [] },
      undefined,
      run.parent,
    );
    run.history.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW, this.clock.now(), {
      workflowExecutionContinuedAsNewEventAttributes: {
        newExecutionRunId: next.runId,
        workflowType: { name: next.workflowType },
        taskQueue: { name: next.taskQueue },
        input: { payloads: command.arguments ?? [] },
        workflowTaskTimeout: msNumberToTs(10_000),
        workflowTaskCompletedEventId: completedEventId,
        initiator: temporal.api.enums.v1.ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_WORKFLOW,
        header: {},
      },
    });
    // The new run takes over as the parent's child.
    const child = run.parent?.run.children?.get(run.parent.seq);
    if (child) child.ref.runId = child.ref.runId || next.runId;
    this.closeRun(run, { status: 'CONTINUED_AS_NEW', next });
  }

  // ---------------------------------------------------------------- closing

  private closeRun(run: Run, outcome: Outcome): void {
    if (!run.open) return;
    run.close(outcome, this.clock.now());
    for (const { timer } of run.timers?.values() ?? []) this.clock.cancel(timer);
    run.timers = undefined;
    for (const activity of run.activities?.values() ?? []) {
      activity.done = true;
      if (activity.timer) this.clock.cancel(activity.timer);
      activity.attemptHandle?.cancel('CANCELLED');
    }
    run.activities = undefined;
    run.inbox = undefined;
    this.abandonUpdates(run, () => new WorkflowClosedError(run.workflowId));
    // Children outlive a parent only with the ABANDON policy (the server's default is TERMINATE).
    if (outcome.status !== 'CONTINUED_AS_NEW') {
      for (const child of run.children?.values() ?? []) {
        if (child.parentClosePolicy === coresdk.child_workflow.ParentClosePolicy.PARENT_CLOSE_POLICY_ABANDON) continue;
        const childRun = this.latest.get(child.ref.workflowId);
        if (childRun?.open) this.terminate(childRun, `parent ${run.workflowId} closed`);
      }
      run.children = undefined;
      if (run.parent) this.childClosed(run.parent.run, run.parent.seq, outcome);
    }
    if (!this.keepClosedHistory) run.history.clear();
    run.replay.clear();
    this.cached.delete(run);
    this.track(
      run.exclusive(() => this.disposeSandbox(run)),
      this.activations,
    );
  }

  private terminate(run: Run, reason: string): void {
    run.history.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, this.clock.now(), {
      workflowExecutionTerminatedEventAttributes: { reason, identity: ENGINE_IDENTITY },
    });
    this.closeRun(run, { status: 'TERMINATED', reason });
  }

  private async disposeSandbox(run: Run): Promise<void> {
    const workflow = run.workflow;
    run.workflow = undefined;
    // A run that sleeps keeps its history and activations encoded until it wakes.
    if (run.open) {
      run.history.pack();
      run.replay.pack();
    }
    await workflow?.dispose();
  }

  /**
   * A plain Error thrown by workflow code, or a determinism problem: a real server would retry the
   * task forever and the workflow would sit still. Say so loudly; result() rejects with it.
   */
  private failTask(run: Run, failure: Failure): void {
    run.taskFailure = failure;
    const error = failureToError(failure);
    this.log.error(
      { workflowId: run.workflowId, runId: run.runId, workflowType: run.workflowType, error: error.stack ?? error.message },
      `workflow task failed: ${run.workflowType} ${run.workflowId} is stuck until its code is fixed (${error.message})`,
    );
    run.history.add(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED, this.clock.now(), {
      workflowTaskFailedEventAttributes: { failure, identity: ENGINE_IDENTITY },
    });
    this.abandonUpdates(run, () => new WorkflowTaskFailedError(run.workflowId, error));
    run.wake();
  }

  private unwrap<T>(run: Run): T {
    const outcome = run.outcome;
    if (outcome?.status === 'COMPLETED') return (outcome.result ? defaultPayloadConverter.fromPayload(outcome.result) : undefined) as T;
    if (outcome?.status === 'FAILED') throw failureToError(outcome.failure);
    if (outcome?.status === 'CANCELLED') throw new CancelledFailure('Workflow cancelled');
    throw new TerminatedFailure(outcome?.status === 'TERMINATED' ? outcome.reason : 'terminated');
  }

  // ---------------------------------------------------------------- plumbing

  private async forwardSinkCalls(run: Run): Promise<void> {
    const calls = await run.workflow?.getAndResetSinkCalls();
    for (const call of calls ?? []) {
      if (call.ifaceName !== '__temporal_logger' && call.ifaceName !== 'defaultWorkerLogger') continue;
      const [message, attrs] = call.args as [string, Record<string, unknown> | undefined];
      const fields = { ...attrs, workflowId: run.workflowId, runId: run.runId };
      const level = call.fnName === 'error' || call.fnName === 'warn' || call.fnName === 'info' ? call.fnName : 'debug';
      this.log[level](fields, message);
    }
  }

  /** Keeps a handle on background work: settle() waits for it and a failure in it is never lost. */
  private track(promise: Promise<unknown>, set: Set<Promise<unknown>>): void {
    const tracked = promise.then(
      () => undefined,
      (err: unknown) => {
        this.fatal ??= err;
        this.log.error({ error: err instanceof Error ? err.stack : String(err) }, 'embedded engine internal error');
      },
    );
    set.add(tracked);
    void tracked.finally(() => set.delete(tracked));
  }

  private async settle(): Promise<void> {
    for (;;) {
      if (this.fatal) throw this.fatal;
      if (this.activations.size > 0) {
        await Promise.all(this.activations);
        continue;
      }
      if (this.attempts.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      const hung = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), this.hungActivityAfterMs);
      });
      const moved = await Promise.race([Promise.race(this.attempts).then(() => false), hung]);
      clearTimeout(timer);
      if (moved) return;
    }
  }

  private virtualClock(): VirtualClock {
    if (!(this.clock instanceof VirtualClock)) throw new TypeError('advance() needs the virtual clock');
    return this.clock;
  }

  private assertRunning(): void {
    if (this.stopped) throw new Error('the embedded engine is shut down');
  }
}
