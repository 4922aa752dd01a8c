// The activities of a worker in a process of its own (`npm run worker`), built with the real
// dependencies `npm start` gives them: the database found the way the server and the CLI find it
// (DATABASE_URL, else the embedded PostgreSQL under KASI_DATA_DIR, started if no process runs it),
// the configuration, the log, the wall clock, and a port over a Temporal Client for the
// activities that start or signal workflows.
import type { ActivityFunction } from '@temporalio/common';
import type { Logger } from 'pino';
import { createActivities } from '../activities';
import type { Config } from '../config';
import { openDatabase } from '../db/connection';
import { checkSecretKey } from '../db/installation';
import { systemClock } from '../domain/clock';
import { connectTemporalPort } from './temporal-worker';

export interface WorkerActivities {
  activities: Record<string, ActivityFunction>;
  /** Closes the Temporal client and the database (after the worker has stopped). */
  close(): Promise<void>;
}

export async function openWorkerActivities(config: Config & { temporalAddress: string }, log: Logger): Promise<WorkerActivities> {
  if (!config.databaseUrl) log.info({ dataDir: config.dataDir }, 'DATABASE_URL unset: using the embedded PostgreSQL');
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, log: (line) => log.debug({ postgres: line.trim() }) });
  try {
    await checkSecretKey(db.knex, config.secretKey(), systemClock.now());
    const temporal = await connectTemporalPort({ address: config.temporalAddress, namespace: config.temporalNamespace, log });
    const activities = createActivities({ db: db.knex, clock: systemClock, config, log, orchestration: () => temporal.port });
    return {
      activities,
      async close() {
        await temporal.close();
        await db.close();
      },
    };
  } catch (err) {
    await db.close();
    throw err;
  }
}
