// The port over a real Temporal cluster, through @temporalio/client.
import { Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError as ClientNotFound, WorkflowUpdateFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { WorkflowClosedError, WorkflowNotFoundError, WorkflowQueryFailedError, WorkflowUpdateRejectedError } from './errors';
import { TASK_QUEUE, searchAttributesFor } from './ids';
import { messageName, type OrchestrationPort, type StartResult, type WorkflowStart, type WorkflowStatus } from './port';

export function createTemporalPort(client: Client, taskQueue = TASK_QUEUE): OrchestrationPort {
  const options = (start: WorkflowStart) => ({
    taskQueue,
    workflowId: start.workflowId,
    args: start.args,
    typedSearchAttributes: searchAttributesFor(start.accountId, start.mode),
    workflowIdReusePolicy: start.idReuse === 'allow-duplicate' ? ('ALLOW_DUPLICATE' as const) : ('REJECT_DUPLICATE' as const),
  });

  const existing = async (workflowId: string): Promise<StartResult> => {
    const description = await client.workflow.getHandle(workflowId).describe();
    return { workflowId, runId: description.runId, started: false };
  };

  const handle = (workflowId: string): WorkflowHandle => client.workflow.getHandle(workflowId);

  /**
   * Client errors become the port's, so callers never depend on which engine runs. A server
   * answers "not found" for a workflow that has closed as well ("workflow execution already
   * completed"), and the client makes both a WorkflowNotFoundError: describe tells them apart.
   */
  const translate = async <T>(workflowId: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof ClientNotFound)) throw err;
      throw (await exists(workflowId)) ? new WorkflowClosedError(workflowId) : new WorkflowNotFoundError(workflowId);
    }
  };

  const exists = async (workflowId: string): Promise<boolean> => {
    try {
      await handle(workflowId).describe();
      return true;
    } catch (err) {
      if (err instanceof ClientNotFound) return false;
      throw err;
    }
  };

  return {
    engine: 'temporal',
    async start(start) {
      try {
        const started = await client.workflow.start(start.workflowType, options(start));
        return { workflowId: start.workflowId, runId: started.firstExecutionRunId, started: true };
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return existing(start.workflowId);
        throw err;
      }
    },
    signal(workflowId, signal, args) {
      return translate(workflowId, () => handle(workflowId).signal(defineSignal<unknown[]>(messageName(signal)), ...(args ?? [])));
    },
    async signalWithStart(start, signal, signalArgs) {
      try {
        const started = await client.workflow.signalWithStart(start.workflowType, { ...options(start), signal: messageName(signal), signalArgs: (signalArgs ?? []) as unknown[] });
        return { workflowId: start.workflowId, runId: started.signaledRunId };
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return { workflowId: start.workflowId, runId: (await existing(start.workflowId)).runId };
        throw err;
      }
    },
    query<T>(workflowId: string, queryType: string, args: unknown[] = []) {
      return translate(workflowId, async () => {
        try {
          return await handle(workflowId).query(defineQuery<T, unknown[]>(queryType), ...args);
        } catch (err) {
          if (err instanceof ClientNotFound) throw err;
          throw new WorkflowQueryFailedError(workflowId, queryType, (err as Error).message);
        }
      });
    },
    update<R, A extends unknown[]>(workflowId: string, update: UpdateDefinition<R, A> | string, args?: A) {
      const name = messageName(update);
      return translate(workflowId, async () => {
        try {
          // The client's overloads tell updates with arguments from those without; both send an array.
          return await handle(workflowId).executeUpdate<R, [unknown, ...unknown[]]>(name, { args: (args ?? []) as unknown[] as [unknown, ...unknown[]] });
        } catch (err) {
          // The validator's rejection and the handler's failure reach the client alike.
          if (err instanceof WorkflowUpdateFailedError) throw new WorkflowUpdateRejectedError(workflowId, name, err.cause instanceof Error ? err.cause : err);
          throw err;
        }
      });
    },
    async cancel(workflowId) {
      try {
        await translate(workflowId, () => handle(workflowId).cancel());
      } catch (err) {
        if (!(err instanceof WorkflowClosedError)) throw err;
      }
    },
    async describe(workflowId) {
      try {
        const d = await handle(workflowId).describe();
        return {
          workflowId,
          runId: d.runId,
          workflowType: d.type,
          status: d.status.name as WorkflowStatus,
          startTime: d.startTime,
          closeTime: d.closeTime,
        };
      } catch (err) {
        if (err instanceof ClientNotFound) return undefined;
        throw err;
      }
    },
  };
}
