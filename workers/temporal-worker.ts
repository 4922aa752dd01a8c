// A @temporalio/worker Worker on the project's task queue, shared by `npm run worker` and by
// `npm start` when TEMPORAL_ADDRESS is set; and the client-side port beside it, for activities
// that start or signal workflows.
import { Client, Connection } from '@temporalio/client';
import { IllegalStateError, type ActivityFunction } from '@temporalio/common';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { TASK_QUEUE } from '../orchestration/ids';
import type { OrchestrationPort } from '../orchestration/port';
import { checkSearchAttributes, ensureSearchAttributes, SearchAttributesMissingError } from '../orchestration/search-attributes';
import { retryFailedStarts } from '../orchestration/start-retries';
import { createTemporalPort } from '../orchestration/temporal';
import { NotReady, type ReadinessCheck } from '../api/platform/health';
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

/** Within /readyz's own limit for a check (CHECK_TIMEOUT_MS). */
const SEARCH_ATTRIBUTES_DEADLINE_MS = 1_500;

export interface TemporalPort {
  port: OrchestrationPort;
  client: Client;
  /** The namespace still lists Kasi's search attributes (for /readyz). */
  readiness: ReadinessCheck;
  close(): Promise<void>;
}

/**
 * The orchestration port over a Temporal Client on its own connection, for `npm start` and for a
 * worker's activities: Kasi's search attributes checked (registered where the server allows) first,
 * and a start that fails retried in the background (orchestration/start-retries.ts).
 */
export async function connectTemporalPort(options: { address: string; namespace?: string; log: EngineLog }): Promise<TemporalPort> {
  const { address, log } = options;
  const namespace = options.namespace ?? 'default';
  const connection = await Connection.connect({ address });
  try {
    // Before anything starts a workflow: every start carries them.
    const found = await ensureSearchAttributes(connection.operatorService, { namespace, address });
    if (found === 'unchecked') log.warn({ namespace }, "orchestration: the Temporal server has no operator service (a test server?): Kasi's search attributes were not checked");
    else log.info({ namespace, searchAttributes: found }, "orchestration: Kasi's search attributes are registered on the namespace");
  } catch (err) {
    await connection.close();
    throw err;
  }
  const client = new Client({ connection, namespace });
  const retries = retryFailedStarts(createTemporalPort(client, TASK_QUEUE), { log });
  return {
    port: retries.port,
    client,
    async readiness() {
      try {
        await connection.withDeadline(Date.now() + SEARCH_ATTRIBUTES_DEADLINE_MS, () => checkSearchAttributes(connection.operatorService, namespace, address));
      } catch (err) {
        if (err instanceof SearchAttributesMissingError) throw new NotReady(err.publicMessage, { cause: err });
        throw new NotReady("the Temporal server does not list the namespace's search attributes", { cause: err });
      }
    },
    close: () => {
      retries.stop();
      return connection.close();
    },
  };
}
