// Starts whichever orchestration this process runs and hands back the port the API uses.
// With TEMPORAL_ADDRESS: a Client for the port and a Worker in this process. Without it: the
// embedded engine on the real clock, for one machine; on boot the resumers restart the workflow
// of every non-final object, because the embedded engine keeps nothing across restarts. On
// Temporal, Kasi's search attributes are checked (and registered where the server allows) before
// anything starts; either way a start that fails is retried in the background (start-retries.ts).
import type { ActivityFunction } from '@temporalio/common';
import { createEmbeddedPort } from '../orchestration/embedded';
import { WorkflowStartRetryingError } from '../orchestration/errors';
import { TASK_QUEUE } from '../orchestration/ids';
import type { OrchestrationPort, WorkflowStart } from '../orchestration/port';
import { retryFailedStarts } from '../orchestration/start-retries';
import type { ReadinessCheck } from '../api/platform/health';
import { EmbeddedEngine } from './embedded-engine/engine';
import type { EngineLog } from './embedded-engine/log';
import type { Clock as EngineClock } from './embedded-engine/clock';
import { connectTemporalPort, createTemporalWorker } from './temporal-worker';

/** Reads the database and returns the workflow start of every object not yet in a final state. */
export type Resumer = () => Promise<WorkflowStart[]>;

export interface OrchestrationOptions {
  /** Set: run on Temporal. Unset: the embedded engine. */
  temporalAddress?: string;
  namespace?: string;
  activities: Record<string, ActivityFunction>;
  workflowsPath: string;
  /** 'virtual' (or a VirtualClock the caller also reads) only makes sense in tests; `npm start` uses 'real'. */
  clock?: 'real' | 'virtual' | EngineClock;
  log: EngineLog;
  resumers?: Resumer[];
}

export interface Orchestration {
  port: OrchestrationPort;
  /** How many workflows the resumers started on boot (already running ones are not counted). */
  resumed: number;
  /** On Temporal: the namespace still lists Kasi's search attributes (for /readyz). */
  readiness?: ReadinessCheck;
  stop(): Promise<void>;
  /** The embedded engine, when it is the one running (tests drive its virtual clock). */
  engine?: EmbeddedEngine;
}

export async function startOrchestration(options: OrchestrationOptions): Promise<Orchestration> {
  const { log } = options;
  if (options.temporalAddress) {
    const address = options.temporalAddress;
    const namespace = options.namespace ?? 'default';
    // Its search attributes first: a refusal stops the start before the worker polls.
    const temporal = await connectTemporalPort({ address, namespace, log });
    let worker: Awaited<ReturnType<typeof createTemporalWorker>>;
    try {
      worker = await createTemporalWorker({ address, namespace, workflowsPath: options.workflowsPath, activities: options.activities });
    } catch (err) {
      await temporal.close();
      throw err;
    }
    const running = worker.worker.run();
    log.info({ address, namespace, taskQueue: TASK_QUEUE }, 'orchestration: Temporal, with a worker in this process');
    // Temporal is durable; resuming still heals a crash between a commit and its workflow start.
    const resumed = await resume(temporal.port, options.resumers ?? [], log);
    return {
      port: temporal.port,
      resumed,
      readiness: temporal.readiness,
      async stop() {
        worker.worker.shutdown();
        await running;
        await worker.connection.close();
        await temporal.close();
      },
    };
  }
  const engine = await EmbeddedEngine.create({
    workflowsPath: options.workflowsPath,
    activities: options.activities,
    clock: options.clock ?? 'real',
    namespace: options.namespace,
    log,
  });
  log.warn(
    {},
    'orchestration: embedded engine (TEMPORAL_ADDRESS is not set). This mode is for one machine: workflows live in this process and are restarted from Postgres on boot. Production runs on Temporal: set TEMPORAL_ADDRESS.',
  );
  const retries = retryFailedStarts(createEmbeddedPort(engine), { log });
  const resumed = await resume(retries.port, options.resumers ?? [], log);
  return {
    port: retries.port,
    resumed,
    engine,
    stop: () => {
      retries.stop();
      return engine.shutdown();
    },
  };
}

async function resume(port: OrchestrationPort, resumers: Resumer[], log: EngineLog): Promise<number> {
  let resumed = 0;
  for (const resumer of resumers) {
    for (const start of await resumer()) {
      try {
        if ((await port.start(start)).started) resumed++;
      } catch (err) {
        // Logged, counted and retried by the port: the boot goes on with the other objects.
        if (!(err instanceof WorkflowStartRetryingError)) throw err;
      }
    }
  }
  if (resumers.length > 0) log.info({ resumed }, 'orchestration: resumed the workflows of non-final objects');
  return resumed;
}
