// The whole service in one process: orchestration (Temporal, or the embedded engine), the
// activities, and the HTTP API. `npm start` runs it on the real clock; tests run it on the
// embedded engine's virtual clock, which the API then reads too, so both sides agree on "now", or
// on Temporal's time-skipping test server with a clock that follows the server's time.
import path from 'node:path';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config';
import { systemClock, type Clock } from '../domain/clock';
import { createActivities } from '../activities';
import { checkSecretKey, recordWebhookLoopbackRule } from '../db/installation';
import { startActiveKeyCache } from '../db/active-key-cache';
import { listen, type RunningServer } from '../api/server';
import type { OrchestrationPort } from '../orchestration';
import type { Clock as EngineClock } from './embedded-engine/clock';
import { startOrchestration, type Orchestration } from './orchestration';
import { createResumers } from './resumers';
import { observeOrchestration } from './observability';
import { startEmailSender } from './email-sender';
import { startWebhookDispatcher, type WebhookDispatcher } from './webhook-dispatcher';
import type { Resolver } from '../net/webhook-http';
import type { ReadinessCheck } from '../api/platform/health';

export const WORKFLOWS_PATH = path.resolve(__dirname, '../workflows/index.ts');

export interface Service {
  http: RunningServer;
  orchestration: Orchestration;
  webhooks: WebhookDispatcher;
  clock: Clock;
  stop(): Promise<void>;
}

export async function startService(options: {
  db: Knex;
  /** The same database as `db`, for the dispatcher's LISTEN connection. */
  databaseUrl: string;
  config: Config;
  log: Logger;
  /** Tests: the engine's virtual clock, read by the API and activities as well. */
  engineClock?: EngineClock;
  /** Tests on a Temporal server that skips time: the server's time, for the API and activities. */
  clock?: Clock;
  /** Tests: wraps the port everything in the service uses (to learn which workflows it starts). */
  wrapPort?: (port: OrchestrationPort) => OrchestrationPort;
  limiter?: RateLimiterAbstract;
  port?: number;
  /** Tests: where webhook host names resolve. */
  resolveHost?: Resolver;
}): Promise<Service> {
  const { db, config, log } = options;
  const engineClock = options.engineClock;
  const clock: Clock = options.clock ?? (engineClock ? { now: () => new Date(engineClock.now()) } : systemClock);
  // Before anything seals or opens a secret: refuse a key other than the installation's, and
  // record the loopback rule this server applies so the CLI applies the same.
  await checkSecretKey(db, config.secretKey(), clock.now());
  await recordWebhookLoopbackRule(db, config.webhookAllowLoopback, clock.now());
  const observer = observeOrchestration({ temporal: config.temporalAddress ? { address: config.temporalAddress, namespace: config.temporalNamespace } : undefined, log });
  // Activities are built before the port they may call; they read it once it exists.
  const started: { port?: OrchestrationPort } = {};
  // The activities' configuration learns the bound port with the API's (below): the addresses they
  // write (an invoice's page) must be the ones the server answers on.
  const activityConfig: Config = { ...config };
  const activities = createActivities({
    db,
    clock,
    config: activityConfig,
    log,
    resolveHost: options.resolveHost,
    orchestration: () => {
      if (!started.port) throw new Error('orchestration is not started yet');
      return started.port;
    },
  });
  const orchestration = await startOrchestration({
    temporalAddress: config.temporalAddress,
    namespace: config.temporalNamespace,
    activities,
    workflowsPath: WORKFLOWS_PATH,
    clock: engineClock ?? 'real',
    log,
    resumers: observer.wrapResumers(createResumers({ db, clock })),
  });
  const instrumented = observer.wrapPort(orchestration.port);
  const port = (started.port = options.wrapPort ? options.wrapPort(instrumented) : instrumented);
  observer.watch({ db, engine: orchestration.engine });
  const webhooks = await startWebhookDispatcher({ db, databaseUrl: options.databaseUrl, port, clock, log });
  const activeKeys = await startActiveKeyCache({ db, databaseUrl: options.databaseUrl, log });
  const emails = startEmailSender({ db, config, clock, log });
  const http = await listen({ db, config, log, clock, limiter: options.limiter, activeKeys, orchestration: port, orchestrationCheck: bothChecks(observer.readiness, orchestration.readiness) }, options.port);
  Object.assign(activityConfig, http.config);
  return {
    http,
    orchestration,
    webhooks,
    clock,
    async stop() {
      // The LISTEN connections stop first, at once: the database may be going down with the
      // service (a terminal's Ctrl-C reaches the embedded PostgreSQL too), and a notification
      // missed from here on changes nothing (undispatched events are picked up on the next boot).
      const listeners = Promise.all([activeKeys.stop(), webhooks.stop(), emails.stop()]);
      await http.close();
      await listeners;
      await orchestration.stop();
      await observer.stop();
    },
  };
}

/** The server answers, then the namespace still has Kasi's search attributes (on Temporal; else the port's own check). */
function bothChecks(first: ReadinessCheck | undefined, then: ReadinessCheck | undefined): ReadinessCheck | undefined {
  if (first === undefined || then === undefined) return first ?? then;
  return async () => {
    await Promise.all([first(), then()]);
  };
}
