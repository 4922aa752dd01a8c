// `npm run worker`: one more Temporal worker for the project's task queue, to scale out beside
// `npm start`. Needs TEMPORAL_ADDRESS; it registers every activity with the same dependencies as
// `npm start` (see activity-dependencies.ts), so any worker can take any task.
import path from 'node:path';
import { loadConfig } from '../config';
import { createLogger } from '../config/logger';
import { TASK_QUEUE } from '../orchestration/ids';
import { openWorkerActivities } from './activity-dependencies';
import { createTemporalWorker } from './temporal-worker';
import { SearchAttributesMissingError } from '../orchestration/search-attributes';

async function main(): Promise<void> {
  const config = loadConfig();
  const address = config.temporalAddress;
  if (!address) {
    console.error('npm run worker needs TEMPORAL_ADDRESS (a Temporal frontend, e.g. localhost:7233). Without Temporal, `npm start` runs the embedded engine in its own process.');
    process.exit(2);
  }
  const log = createLogger(config.logLevel);
  const { activities, close } = await openWorkerActivities({ ...config, temporalAddress: address }, log);
  const { worker, connection } = await createTemporalWorker({ address, namespace: config.temporalNamespace, workflowsPath: path.resolve(__dirname, '../workflows/index.ts'), activities });
  // `on`, not `once`: a terminal's Ctrl-C arrives more than once (npm and tsx relay it too).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => worker.getState() === 'RUNNING' && worker.shutdown());
  console.log(`worker polling task queue ${TASK_QUEUE} on ${address} (namespace ${config.temporalNamespace}) with ${Object.keys(activities).length} activities`);
  await worker.run();
  await connection.close();
  await close();
}

main().catch((err: unknown) => {
  // The operator's next step, without a stack trace around it.
  console.error(err instanceof SearchAttributesMissingError ? `refusing to start: ${err.message}` : err);
  process.exit(1);
});
