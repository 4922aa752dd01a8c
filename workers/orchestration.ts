// Starts whichever orchestration this process runs and hands back the port the API uses.
// With TEMPORAL_ADDRESS: a Client for the port and a Worker in this process. Without it: the
// embedded engine on the real clock, for one machine; on boot the resumers restart the workflow
// of every non-final object, because the embedded engine keeps nothing across restarts.
import type { ActivityFunction } from '@temporalio/common';
import { Client, Connection } from '@temporalio/client';
import { createEmbeddedPort } from '../orchestration/embedded';
import { TASK_QUEUE } from '../orchestration/ids';
import type { OrchestrationPort, WorkflowStart } from '../orchestration/port';
import { createTemporalPort } from '../orchestration/temporal';
import { EmbeddedEngine } from './embedded-engine/engine';
import type { EngineLog } from './embedded-engine/log';
import type { Clock as EngineClock } from './embedded-engine/clock';
import { createTemporalWorker } from './temporal-worker';

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
  stop(): Promise<void>;
  /** The embedded engine, when it is the one running (tests drive its virtual clock). */
  engine?: EmbeddedEngine;
}

export async function startOrchestration(options: OrchestrationOptions): Promise<Orchestration> {
  const { log } = options;
  if (options.temporalAddress) {
    const { worker, connection: workerConnection } = await createTemporalWorker({
      address: options.temporalAddress,
      namespace: options.namespace,
      workflowsPath: options.workflowsPath,
      activities: options.activities,
    });
    const connection = await Connection.connect({ address: options.temporalAddress });
    const port = createTemporalPort(new Client({ connection, namespace: options.namespace ?? 'default' }), TASK_QUEUE);
    const running = worker.run();
    log.info({ address: options.temporalAddress, namespace: options.namespace ?? 'default', taskQueue: TASK_QUEUE }, 'orchestration: Temporal, with a worker in this process');
    // Temporal is durable; resuming still heals a crash between a commit and its workflow start.
    const resumed = await resume(port, options.resumers ?? [], log);
    return {
      port,
      resumed,
      async stop() {
        worker.shutdown();
        await running;
        await workerConnection.close();
        await connection.close();
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
  const port = createEmbeddedPort(engine);
  const resumed = await resume(port, options.resumers ?? [], log);
  return { port, resumed, engine, stop: () => engine.shutdown() };
}

async function resume(port: OrchestrationPort, resumers: Resumer[], log: EngineLog): Promise<number> {
  let resumed = 0;
  for (const resumer of resumers) {
    for (const start of await resumer()) {
      if ((await port.start(start)).started) resumed++;
    }
  }
  if (resumers.length > 0) log.info({ resumed }, 'orchestration: resumed the workflows of non-final objects');
  return resumed;
}
