// Child workflow commands: startChildWorkflowExecution runs the child as a workflow of its own; the
// close of its chain of runs resolves the parent's wait, and a parent that closes takes its
// children with it unless their parent close policy is ABANDON.
import { msNumberToTs } from '@temporalio/common/lib/time';
import { coresdk, temporal } from '@temporalio/proto';
import type { Clock } from './clock';
import { childFailure, retryState } from './failures';
import type { ChildRef } from './failures';
import type { Loose } from './proto';
import { withEntry, withoutEntry } from './run';
import type { Deliver, Outcome, Run } from './run';
import type { RunRegistry } from './runs';

const { EventType } = temporal.api.enums.v1;

export interface ChildState {
  seq: number;
  ref: ChildRef;
  parentClosePolicy: number;
}

export class ChildWorkflowCommands {
  constructor(
    private readonly clock: Clock,
    private readonly namespace: string,
    private readonly runs: RunRegistry,
    private readonly deliver: Deliver,
  ) {}

  start(run: Run, command: coresdk.workflow_commands.IStartChildWorkflowExecution, completedEventId: number): void {
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
    const existing = this.runs.latest(workflowId);
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
    const childRun = this.runs.create(
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
  closed(parent: Run, seq: number, outcome: Outcome): void {
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

  /**
   * The open child runs a closing parent takes with it: all but those started with the ABANDON
   * policy (the server's default is TERMINATE). Each is looked up as it is reached, so the caller
   * may close one before the next is looked at.
   */
  *closingWithParent(parent: Run): Generator<Run> {
    for (const child of parent.children?.values() ?? []) {
      if (child.parentClosePolicy === coresdk.child_workflow.ParentClosePolicy.PARENT_CLOSE_POLICY_ABANDON) continue;
      const childRun = this.runs.latest(child.ref.workflowId);
      if (childRun?.open) yield childRun;
    }
  }
}
