// The errors the orchestration port raises, whichever engine runs behind it.

/** No workflow with this id exists (never started, or forgotten by a restarted embedded engine). */
export class WorkflowNotFoundError extends Error {
  constructor(readonly workflowId: string) {
    super(`workflow ${workflowId} not found`);
    this.name = 'WorkflowNotFoundError';
  }
}

/** The workflow has closed and takes no more signals or cancellation. */
export class WorkflowClosedError extends Error {
  constructor(readonly workflowId: string) {
    super(`workflow ${workflowId} is closed`);
    this.name = 'WorkflowClosedError';
  }
}

/** Nobody runs under the workflow id any more: never started, forgotten, or ended. */
export function workflowGone(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError || err instanceof WorkflowClosedError;
}

/** A query was rejected by the workflow, or could not be answered. */
export class WorkflowQueryFailedError extends Error {
  constructor(
    readonly workflowId: string,
    readonly queryType: string,
    reason: string,
  ) {
    super(`query ${queryType} on ${workflowId} failed: ${reason}`);
    this.name = 'WorkflowQueryFailedError';
  }
}

/**
 * The workflow refused an update: its validator rejected the arguments, or its handler failed with
 * a Temporal failure (an ApplicationFailure). Temporal's client reports both alike, so the port does.
 * A rejection by the validator leaves nothing in the workflow's history.
 */
export class WorkflowUpdateRejectedError extends Error {
  constructor(
    readonly workflowId: string,
    readonly updateName: string,
    override readonly cause: Error,
  ) {
    super(`update ${updateName} on ${workflowId} was rejected: ${cause.message}`);
    this.name = 'WorkflowUpdateRejectedError';
  }
}

/**
 * Workflow code threw a plain Error (or broke determinism): the run is stuck, as it would be on a
 * server that keeps retrying the task, until the code is fixed.
 */
export class WorkflowTaskFailedError extends Error {
  constructor(
    readonly workflowId: string,
    override readonly cause: Error,
  ) {
    super(`workflow task of ${workflowId} failed: ${cause.message}`);
    this.name = 'WorkflowTaskFailedError';
  }
}

/** Virtual time: the workflow waits on something that nothing scheduled will ever bring. */
export class WorkflowBlockedError extends Error {
  constructor(readonly workflowId: string) {
    super(`workflow ${workflowId} is blocked with nothing scheduled (waiting on a signal that never comes?)`);
    this.name = 'WorkflowBlockedError';
  }
}

/**
 * A workflow start failed after its object was committed: it is retried in the background until
 * it succeeds (orchestration/start-retries.ts), and the boot-time resumers find it if the process
 * stops first.
 */
export class WorkflowStartRetryingError extends Error {
  constructor(
    readonly workflowId: string,
    override readonly cause: unknown,
  ) {
    super(`workflow ${workflowId} did not start (${(cause as Error)?.message ?? cause}); retrying in the background`);
    this.name = 'WorkflowStartRetryingError';
  }
}
