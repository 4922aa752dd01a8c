// The whole service in one process: orchestration (Temporal, or the embedded engine), the
// activities, and the HTTP API. `npm start` runs it on the real clock; tests run it on the
// embedded engine's virtual clock, which the API then reads too, so both sides agree on "now".
import path from 'node:path';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config';
import { systemClock, type Clock } from '../domain/clock';
import { createActivities } from '../activities';
import { listen, type RunningServer } from '../api/server';
import type { OrchestrationPort } from '../orchestration';
import type { Clock as EngineClock } from './embedded-engine/clock';
import { startOrchestration, type Orchestration } from './orchestration';
import { createResumers } from './resumers';

export const WORKFLOWS_PATH = path.resolve(__dirname, '../workflows/index.ts');

export interface Service {
  http: RunningServer;
  orchestration: Orchestration;
  clock: Clock;
  stop(): Promise<void>;
}

export async function startService(options: {
  db: Knex;
  config: Config;
  log: Logger;
  /** Tests: the engine's virtual clock, read by the API and activities as well. */
  engineClock?: EngineClock;
  limiter?: RateLimiterAbstract;
  port?: number;
}): Promise<Service> {
  const { db, config, log } = options;
  const engineClock = options.engineClock;
  const clock: Clock = engineClock ? { now: () => new Date(engineClock.now()) } : systemClock;
  let port: OrchestrationPort | undefined;
  const activities = createActivities({
    db,
    clock,
    config,
    log,
    orchestration: () => {
      if (!port) throw new Error('orchestration is not started yet');
      return port;
    },
  });
  const orchestration = await startOrchestration({
    temporalAddress: config.temporalAddress,
    namespace: config.temporalNamespace,
    activities,
    workflowsPath: WORKFLOWS_PATH,
    clock: engineClock ?? 'real',
    log,
    resumers: createResumers({ db, clock }),
  });
  port = orchestration.port;
  const http = await listen({ db, config, log, clock, limiter: options.limiter, orchestration: port }, options.port);
  return {
    http,
    orchestration,
    clock,
    async stop() {
      await http.close();
      await orchestration.stop();
    },
  };
}
