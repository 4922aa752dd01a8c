// `npm run worker`: one more Temporal worker for the project's task queue, to scale out beside
// `npm start`. Needs TEMPORAL_ADDRESS; the activities come from their factories in activities/
// as the business issues add them.
import path from 'node:path';
import type { ActivityFunction } from '@temporalio/common';
import { TASK_QUEUE } from '../orchestration/ids';
import { createTemporalWorker } from './temporal-worker';

/** The activities every worker registers, built from factories that receive their dependencies. */
export async function buildActivities(): Promise<Record<string, ActivityFunction>> {
  return {};
}

async function main(): Promise<void> {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) {
    console.error('npm run worker needs TEMPORAL_ADDRESS (a Temporal frontend, e.g. localhost:7233). Without Temporal, `npm start` runs the embedded engine in its own process.');
    process.exit(2);
  }
  const { worker, connection } = await createTemporalWorker({
    address,
    namespace: process.env.TEMPORAL_NAMESPACE,
    workflowsPath: path.resolve(__dirname, '../workflows/index.ts'),
    activities: await buildActivities(),
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => worker.shutdown());
  console.log(`worker polling task queue ${TASK_QUEUE} on ${address}`);
  await worker.run();
  await connection.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
