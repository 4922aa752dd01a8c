// A workflow run's state: the one object the engine's collaborators share. The workflow tasks
// (workflow-tasks.ts) activate its sandbox; the timers, activities, children and updates it waits
// on are kept here by the modules that carry them out (timers.ts, activities.ts,
// child-workflows.ts, signals-and-updates.ts).
import type { Workflow } from '@temporalio/worker/lib/workflow/interface';
import type { ActivityState } from './activities';
import type { ChildState } from './child-workflows';
import { HistoryRecorder } from './history';
import type { Job } from './jobs';
import type { FailureObject, Payload } from './proto';
import { ReplayLog } from './replay-log';
import type { PendingUpdate } from './signals-and-updates';
import type { WorkflowTimer } from './timers';

export type WorkflowStatus = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TERMINATED' | 'CONTINUED_AS_NEW';

export type Outcome =
  | { status: 'COMPLETED'; result?: Payload | null }
  | { status: 'FAILED'; failure: FailureObject }
  | { status: 'CANCELLED' }
  | { status: 'TERMINATED'; reason: string }
  | { status: 'CONTINUED_AS_NEW'; next: Run };

export interface Delivery {
  /** A function when the job needs event ids that exist only once `record` has run. */
  job: Job | (() => Job);
  /** Writes the history event this job comes from, when the job is delivered. */
  record?: () => void;
}

/** Queues a job for the run's next workflow task (WorkflowTasks.deliver). */
export type Deliver = (run: Run, delivery: Delivery) => void;

/**
 * One run. Tens of thousands can be open at once (every checkout waits out its lifetime here), and
 * every major garbage collection traces each object they hold, so a sleeping run holds few: what
 * only a busy run needs (queued jobs, pending commands, close waiters, its turn's promise) exists
 * only while there is some, and what runs have in common (SDK flags, search attributes) is shared.
 */
export class Run {
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
  taskFailure?: FailureObject;
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
export function withEntry<V>(map: Map<number, V> | undefined, seq: number, value: V): Map<number, V> {
  return (map ?? new Map<number, V>()).set(seq, value);
}

/** The map without `key`; undefined once empty, so a sleeping run does not keep an empty map. */
export function withoutEntry<K, V>(map: Map<K, V> | undefined, key: K): Map<K, V> | undefined {
  map?.delete(key);
  return map?.size ? map : undefined;
}

const NO_FLAGS: readonly number[] = Object.freeze([]);
/** Each distinct set of flags once: in practice every run of one SDK version uses the same set. */
const flagSets = new Map<string, readonly number[]>();

/** `flags` with `used` added, ascending, interned. */
export function withFlags(flags: readonly number[], used: readonly number[]): readonly number[] {
  if (used.every((flag) => flags.includes(flag))) return flags;
  const union = [...new Set([...flags, ...used])].sort((a, b) => a - b);
  const key = union.join(',');
  let interned = flagSets.get(key);
  if (interned === undefined) flagSets.set(key, (interned = Object.freeze(union)));
  return interned;
}
