// A @temporalio/worker Worker on the project's task queue, shared by `npm run worker` and by
// `npm start` when TEMPORAL_ADDRESS is set.
import type { ActivityFunction } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { TASK_QUEUE } from '../orchestration/ids';
import { bundleWorkflows } from './embedded-engine/workflow-bundle';

export interface TemporalWorkerOptions {
  address: string;
  namespace?: string;
  workflowsPath: string;
  activities: Record<string, ActivityFunction>;
  taskQueue?: string;
}

export async function createTemporalWorker(options: TemporalWorkerOptions): Promise<{ worker: Worker; connection: NativeConnection }> {
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
