// The orchestration port: how the API and the activities start and talk to durable workflows.
// Two implementations sit behind it (Temporal itself, and the embedded engine for one machine);
// nothing outside orchestration/ and workers/ knows which one runs.
import type { SignalDefinition, UpdateDefinition } from '@temporalio/common';

export type Mode = 'test' | 'live';

export interface WorkflowStart {
  /** The workflow function's exported name, e.g. 'checkoutLifetime'. */
  workflowType: string;
  /** Deterministic: `<kind>/<objectId>` (see workflowIdFor), so a repeated start finds the first. */
  workflowId: string;
  args: unknown[];
  /** Shown as search attributes so an operator can find an account's workflows. */
  accountId?: string;
  mode?: Mode;
  /**
   * 'reject-duplicate' (default): once a workflow with this id ran, starting it again does nothing.
   * 'allow-duplicate': a closed workflow with this id may run again (a new run).
   */
  idReuse?: 'reject-duplicate' | 'allow-duplicate';
}

export interface StartResult {
  workflowId: string;
  runId: string;
  /** False when a workflow with this id was already running (or had run, under reject-duplicate). */
  started: boolean;
}

export type WorkflowStatus = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TERMINATED' | 'CONTINUED_AS_NEW' | 'TIMED_OUT' | 'UNKNOWN';

export interface WorkflowDescription {
  workflowId: string;
  runId: string;
  workflowType: string;
  status: WorkflowStatus;
  startTime: Date;
  closeTime?: Date;
}

export interface OrchestrationPort {
  /** Which engine runs: for the start-up log and health output, never for branching. */
  readonly engine: 'temporal' | 'embedded';
  /** Harmless when repeated: an existing workflow with the id is left alone. */
  start(start: WorkflowStart): Promise<StartResult>;
  /**
   * Throws WorkflowNotFoundError or WorkflowClosedError when nobody can take the signal. Services
   * pass the workflow's exported definition (a renamed signal fails `tsc`); a name is for tests.
   */
  signal<A extends unknown[]>(workflowId: string, signal: SignalDefinition<A> | string, args?: A): Promise<void>;
  /** Signals the running workflow, or starts it with the signal delivered with its first task. */
  signalWithStart<A extends unknown[]>(start: WorkflowStart, signal: SignalDefinition<A> | string, signalArgs?: A): Promise<{ workflowId: string; runId: string }>;
  query<T = unknown>(workflowId: string, queryType: string, args?: unknown[]): Promise<T>;
  /**
   * Runs an update on the running workflow and waits for its handler's result. Throws
   * WorkflowUpdateRejectedError when the validator rejects it (nothing is recorded) or the handler
   * fails, WorkflowNotFoundError or WorkflowClosedError when nobody can take it.
   */
  update<R, A extends unknown[] = unknown[]>(workflowId: string, update: UpdateDefinition<R, A> | string, args?: A): Promise<R>;
  /** Requests cancellation; the workflow decides how to wind down. No-op on a closed workflow. */
  cancel(workflowId: string): Promise<void>;
  /** Undefined when no workflow has this id. */
  describe(workflowId: string): Promise<WorkflowDescription | undefined>;
}

/** The name a signal or update travels under. */
export function messageName(message: { name: string } | string): string {
  return typeof message === 'string' ? message : message.name;
}
