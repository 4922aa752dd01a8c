// Commands on the workflow execution itself (complete, fail, cancel, continue-as-new, patch
// markers, search attribute upserts), and the close of a run, whatever closes it: its pending
// commands are dropped, its children go with it, and its sandbox is freed.
import { msNumberToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { coresdk } from '@temporalio/proto';
import type { ActivityCommands } from './activities';
import type { ChildWorkflowCommands } from './child-workflows';
import type { Clock } from './clock';
import { retryState } from './failures';
import { ENGINE_IDENTITY } from './history';
import type { Outcome, Run } from './run';
import type { RunRegistry } from './runs';
import type { SignalsAndUpdates } from './signals-and-updates';
import type { TimerCommands } from './timers';
import type { WorkflowCache } from './workflow-cache';
import { WorkflowClosedError } from '../../orchestration/errors';

const { EventType } = temporal.api.enums.v1;

export class ExecutionCommands {
  constructor(
    private readonly clock: Clock,
    private readonly runs: RunRegistry,
    private readonly timers: TimerCommands,
    private readonly activities: ActivityCommands,
    private readonly children: ChildWorkflowCommands,
    private readonly signalsAndUpdates: SignalsAndUpdates,
    private readonly cache: WorkflowCache,
    private readonly keepClosedHistory: boolean,
  ) {}

  complete(run: Run, command: coresdk.workflow_commands.ICompleteWorkflowExecution, completedEventId: number): void {
    const result = command.result;
    run.history.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, this.clock.now(), {
      workflowExecutionCompletedEventAttributes: { result: result ? { payloads: [result] } : undefined, workflowTaskCompletedEventId: completedEventId },
    });
    this.close(run, { status: 'COMPLETED', result });
  }

  fail(run: Run, command: coresdk.workflow_commands.IFailWorkflowExecution, completedEventId: number): void {
    const failure = command.failure ?? { message: 'workflow failed' };
    run.history.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED, this.clock.now(), {
      workflowExecutionFailedEventAttributes: {
        failure,
        retryState: retryState('RETRY_POLICY_NOT_SET'),
        workflowTaskCompletedEventId: completedEventId,
      },
    });
    this.close(run, { status: 'FAILED', failure });
  }

  cancel(run: Run, completedEventId: number): void {
    run.history.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED, this.clock.now(), {
      workflowExecutionCanceledEventAttributes: { workflowTaskCompletedEventId: completedEventId },
    });
    this.close(run, { status: 'CANCELLED' });
  }

  continueAsNew(run: Run, command: coresdk.workflow_commands.IContinueAsNewWorkflowExecution, completedEventId: number): void {
    const next = this.runs.create(
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
    this.close(run, { status: 'CONTINUED_AS_NEW', next });
  }

  recordPatch(run: Run, command: coresdk.workflow_commands.ISetPatchMarker, completedEventId: number): void {
    const { patchId, deprecated } = command;
    run.history.add(EventType.EVENT_TYPE_MARKER_RECORDED, this.clock.now(), {
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
  }

  upsertSearchAttributes(run: Run, command: coresdk.workflow_commands.IUpsertWorkflowSearchAttributes, completedEventId: number): void {
    const fields = command.searchAttributes?.indexedFields ?? {};
    run.searchAttributes = { ...run.searchAttributes, ...fields };
    run.history.add(EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, this.clock.now(), {
      upsertWorkflowSearchAttributesEventAttributes: { workflowTaskCompletedEventId: completedEventId, searchAttributes: { indexedFields: fields } },
    });
  }

  close(run: Run, outcome: Outcome): void {
    if (!run.open) return;
    run.close(outcome, this.clock.now());
    this.timers.cancelAll(run);
    this.activities.abandonAll(run);
    run.inbox = undefined;
    this.signalsAndUpdates.abandonUpdates(run, () => new WorkflowClosedError(run.workflowId));
    if (outcome.status !== 'CONTINUED_AS_NEW') {
      for (const child of this.children.closingWithParent(run)) this.terminate(child, `parent ${run.workflowId} closed`);
      run.children = undefined;
      if (run.parent) this.children.closed(run.parent.run, run.parent.seq, outcome);
    }
    if (!this.keepClosedHistory) run.history.clear();
    run.replay.clear();
    this.cache.remove(run);
  }

  terminate(run: Run, reason: string): void {
    run.history.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, this.clock.now(), {
      workflowExecutionTerminatedEventAttributes: { reason, identity: ENGINE_IDENTITY },
    });
    this.close(run, { status: 'TERMINATED', reason });
  }
}
