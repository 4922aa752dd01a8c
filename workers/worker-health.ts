// A worker container's healthcheck (docker-compose.yml): healthy while a worker of this host
// polls Kasi's task queue for both workflow and activity tasks. A worker's identity is
// `<pid>@<hostname>`, and a container's hostname is its own, so the check needs no pid file. And
// while the namespace still lists Kasi's search attributes, without which every start its
// activities make fails. Exits 0 when healthy, 1 otherwise, saying why.
import os from 'node:os';
import { Connection } from '@temporalio/client';
import { loadConfig } from '../config';
import { TASK_QUEUE } from '../orchestration/ids';
import { checkSearchAttributes } from '../orchestration/search-attributes';

// temporal.api.enums.v1.TaskQueueType
const TASK_QUEUE_TYPES = { workflow: 1, activity: 2 } as const;

async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.temporalAddress) throw new Error('TEMPORAL_ADDRESS is not set');
  const connection = await Connection.connect({ address: config.temporalAddress, connectTimeout: 5000 });
  try {
    const suffix = `@${os.hostname()}`;
    for (const [kind, taskQueueType] of Object.entries(TASK_QUEUE_TYPES)) {
      const { pollers } = await connection.workflowService.describeTaskQueue({ namespace: config.temporalNamespace, taskQueue: { name: TASK_QUEUE }, taskQueueType });
      if (!(pollers ?? []).some((p) => p.identity?.endsWith(suffix))) throw new Error(`no worker on ${os.hostname()} polls ${TASK_QUEUE} for ${kind} tasks`);
    }
    await checkSearchAttributes(connection.operatorService, config.temporalNamespace, config.temporalAddress);
  } finally {
    await connection.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error((err as Error).message ?? err);
    process.exit(1);
  },
);
