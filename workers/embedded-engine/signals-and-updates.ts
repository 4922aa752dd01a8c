// Signals and updates: what a caller sends into a run through its queue, and the workflow's
// answers to updates (updateResponse commands), written to history as the server writes them.
import { defaultPayloadConverter } from '@temporalio/common';
import { toPayloads } from '@temporalio/common/lib/converter/payload-converter';
import { temporal } from '@temporalio/proto';
import type { coresdk } from '@temporalio/proto';
import type { Clock } from './clock';
import { failureToError } from './failures';
import { ENGINE_IDENTITY } from './history';
import type { Command, Payload } from './proto';
import { withoutEntry } from './run';
import type { Delivery, Run } from './run';
import { WorkflowUpdateRejectedError } from '../../orchestration/errors';

const { EventType } = temporal.api.enums.v1;

/** An update a caller waits on, from its delivery until its handler finishes. */
export interface PendingUpdate {
  name: string;
  input: Payload[];
  resolve: (result: Payload | null | undefined) => void;
  reject: (err: Error) => void;
  /** Set once the workflow accepted it (its validator passed): its history event. */
  acceptedEventId?: number;
}

export class SignalsAndUpdates {
  constructor(private readonly clock: Clock) {}

  signalDelivery(run: Run, signalName: string, args: unknown[]): Delivery {
    const input = toPayloads(defaultPayloadConverter, ...args) ?? [];
    return {
      job: { signalWorkflow: { signalName, input, identity: ENGINE_IDENTITY, headers: {} } },
      record: () =>
        run.history.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, this.clock.now(), {
          workflowExecutionSignaledEventAttributes: { signalName, input: { payloads: input }, identity: ENGINE_IDENTITY, header: {} },
        }),
    };
  }

  /** Makes the update pending on the run (its caller waits) and gives its doUpdate job, validator on. */
  updateDelivery(run: Run, updateId: string, update: PendingUpdate): Delivery {
    (run.updates ??= new Map()).set(updateId, update);
    const { name, input } = update;
    // No event yet: the server writes one only when the workflow accepts the update.
    return {
      job: { doUpdate: { id: updateId, protocolInstanceId: updateId, name, input, headers: {}, meta: { updateId, identity: ENGINE_IDENTITY }, runValidator: true } },
    };
  }

  /** A task of update requests alone (no event brought it) whose every answer is a rejection. */
  onlyRejectsUpdates(run: Run, deliveries: Delivery[], commands: Command[]): boolean {
    if (commands.length === 0 || deliveries.some((d) => d.record)) return false;
    return commands.every((c) => c.updateResponse?.rejected && run.updates?.get(c.updateResponse.protocolInstanceId ?? '')?.acceptedEventId === undefined);
  }

  /**
   * The workflow's answer to an update, as the server records it: acceptance writes
   * WorkflowExecutionUpdateAccepted with the request (Core replays the update from it; the request
   * is sequenced at the task's scheduled event, as the server sends it with that task), completion
   * or a handler's failure WorkflowExecutionUpdateCompleted. A validator's rejection writes nothing.
   */
  respondToUpdate(run: Run, response: coresdk.workflow_commands.IUpdateResponse, scheduledEventId: number): void {
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
  abandonUpdates(run: Run, error: () => Error): void {
    const updates = run.updates;
    run.updates = undefined;
    for (const pending of updates?.values() ?? []) pending.reject(error());
  }
}
