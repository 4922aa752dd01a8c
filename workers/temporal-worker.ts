// A @temporalio/worker Worker on the project's task queue, shared by `npm run worker` and by
// `npm start` when TEMPORAL_ADDRESS is set; and the client-side port beside it, for activities
// that start or signal workflows.
import { Client, Connection } from '@temporalio/client';
import { IllegalStateError, type ActivityFunction } from '@temporalio/common';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { TASK_QUEUE } from '../orchestration/ids';
import type { OrchestrationPort } from '../orchestration/port';
import { ensureSearchAttributes } from '../orchestration/search-attributes';
import { retryFailedStarts } from '../orchestration/start-retries';
import { createTemporalPort } from '../orchestration/temporal';
import type { EngineLog } from './embedded-engine/log';
import { bundleWorkflows } from './embedded-engine/workflow-bundle';

export interface TemporalWorkerOptions {
  address: string;
  namespace?: string;
  workflowsPath: string;
  activities: Record<string, ActivityFunction>;
  taskQueue?: string;
}

/**
 * The SDK's runtime, without its own SIGINT/SIGTERM handlers: by default it shuts every worker
 * down on a signal by itself, before `npm start` has closed its HTTP server, and the process's own
 * orderly stop then finds the worker already draining (IllegalStateError, exit 1). The process
 * that runs a worker stops it. Left as it is when something in this process made one already.
 */
function installRuntime(): void {
  try {
    Runtime.install({ shutdownSignals: [] });
  } catch (err) {
    if (!(err instanceof IllegalStateError)) throw err;
  }
}

export async function createTemporalWorker(options: TemporalWorkerOptions): Promise<{ worker: Worker; connection: NativeConnection }> {
  installRuntime();
  const connection = await NativeConnection.connect({ address: options.address });
  const bundle = await bundleWorkflows(options.workflowsPath);
  const worker = await Worker.create({
    connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? TASK_QUEUE,
    workflowBundle: { code: bundle.code },
    activities: options.activities,
  });
  return { worker, connection };
}

/**
 * The orchestration port over a Temporal Client on its own connection, for a worker's activities:
 * Kasi's search attributes checked (registered where the server allows) first, and a start that
 * fails retried in the background as `npm start`'s are.
 */
export async function connectTemporalPort(options: { address: string; namespace?: string; log: EngineLog }): Promise<{ port: OrchestrationPort; client: Client; close(): Promise<void> }> {
  const namespace = options.namespace ?? 'default';
  const connection = await Connection.connect({ address: options.address });
  try {
    await ensureSearchAttributes(connection.operatorService, { namespace, address: options.address });
  } catch (err) {
    await connection.close();
    throw err;
  }
  const client = new Client({ connection, namespace });
  const retries = retryFailedStarts(createTemporalPort(client, TASK_QUEUE), { log: options.log });
  return {
    port: retries.port,
    client,
    close: () => {
      retries.stop();
      return connection.close();
    },
  };
}
