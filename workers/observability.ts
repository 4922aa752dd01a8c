// The orchestration's and the database's side of the metrics (config/metrics.ts): workflows started
// through this process's port, open workflows by type, and the knex pool; and, on Temporal, the
// readiness check of /readyz.
//
// Open workflows: the embedded engine runs every workflow of its installation in this process, so
// it is asked about the ids this process started or resumed (closed ones are forgotten as they are
// found). On Temporal, workflows run on any worker and close where this process cannot see, so the
// count comes from the namespace's visibility store when scraped (one count per workflow type):
// the namespace's total, the same from every process.
import { Connection } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import * as workflows from '../workflows';
import { watchService, workflowStarted, type PoolCounts } from '../config/metrics';
import type { OrchestrationPort } from '../orchestration';
import { NotReady, type ReadinessCheck } from '../api/platform/health';
import type { EmbeddedEngine } from './embedded-engine/engine';
import type { Resumer } from './orchestration';

/** Every workflow type in the bundle: its exported functions. */
export const WORKFLOW_TYPES = Object.entries(workflows)
  .filter(([, value]) => typeof value === 'function')
  .map(([name]) => name);

/** A count that has not answered after this long is left out of the scrape. */
const VISIBILITY_TIMEOUT_MS = 2_000;
/** Within the probe's own limit (CHECK_TIMEOUT_MS), so the answer says what did not answer. */
const READINESS_DEADLINE_MS = 1_500;

export interface OrchestrationObserver {
  /** Counts the workflows the port starts (and, on the embedded engine, remembers their ids). */
  wrapPort(port: OrchestrationPort): OrchestrationPort;
  /** Remembers the ids the boot-time resumers hand to the engine. */
  wrapResumers(resumers: Resumer[]): Resumer[];
  /** Starts answering the metrics, once the orchestration runs. */
  watch(parts: { db: Knex; engine: EmbeddedEngine | undefined }): void;
  /** On Temporal: the frontend answers for the namespace (the embedded engine is checked through the port). */
  readiness: ReadinessCheck | undefined;
  stop(): Promise<void>;
}

export function observeOrchestration(options: { temporal?: { address: string; namespace: string }; log: Logger }): OrchestrationObserver {
  const embedded = options.temporal === undefined;
  // Embedded engine: workflow id -> type, of the workflows this process asked to run.
  const ids = new Map<string, string>();
  let engine: EmbeddedEngine | undefined;
  let sweepAt = 1_000;
  const forgetClosed = () => {
    if (engine === undefined) return;
    for (const id of ids.keys()) if (engine.describe(id)?.status !== 'RUNNING') ids.delete(id);
  };
  const remember = (workflowId: string, workflowType: string) => {
    if (!embedded) return;
    ids.set(workflowId, workflowType);
    // Bounded without a scrape: when the map has doubled, the closed are dropped.
    if (ids.size >= sweepAt) {
      forgetClosed();
      sweepAt = Math.max(1_000, ids.size * 2);
    }
  };
  // No retry interceptor: a probe and a scrape report the present, and no call outlives them (a
  // retry timer firing after close() would throw from the closed channel).
  const connection = options.temporal ? Connection.lazy({ address: options.temporal.address, interceptors: [] }) : undefined;
  let unwatch: (() => void) | undefined;
  let visibilityFailing = false;

  async function openOnTemporal(conn: Connection, namespace: string): Promise<Map<string, number>> {
    const open = new Map<string, number>();
    try {
      await conn.withDeadline(Date.now() + VISIBILITY_TIMEOUT_MS, () =>
        Promise.all(
          WORKFLOW_TYPES.map(async (type) => {
            const { count } = await conn.workflowService.countWorkflowExecutions({ namespace, query: `WorkflowType = '${type}' AND ExecutionStatus = 'Running'` });
            open.set(type, Number(count ?? 0));
          }),
        ),
      );
      visibilityFailing = false;
      return open;
    } catch (err) {
      // Once per streak of failures: a scrape every few seconds would repeat it.
      if (!visibilityFailing) options.log.warn({ err }, 'metrics: Temporal visibility did not count the open workflows; kasi_workflows_open is left out');
      visibilityFailing = true;
      return new Map();
    }
  }

  const temporal = options.temporal;
  return {
    readiness:
      connection && temporal
        ? async () => {
            try {
              await connection.withDeadline(Date.now() + READINESS_DEADLINE_MS, () => connection.workflowService.describeNamespace({ namespace: temporal.namespace }));
            } catch (err) {
              throw new NotReady('the Temporal server does not answer', { cause: err });
            }
          }
        : undefined,
    wrapPort(port) {
      // The ports are plain objects: what is not counted passes through as it is.
      return {
        ...port,
        async start(start) {
          const result = await port.start(start);
          if (result.started) workflowStarted(start.workflowType);
          remember(start.workflowId, start.workflowType);
          return result;
        },
        async signalWithStart(start, signalName, signalArgs) {
          const result = await port.signalWithStart(start, signalName, signalArgs);
          remember(start.workflowId, start.workflowType);
          return result;
        },
      };
    },
    wrapResumers(resumers) {
      return resumers.map((resumer) => async () => {
        const starts = await resumer();
        for (const start of starts) remember(start.workflowId, start.workflowType);
        return starts;
      });
    },
    watch(parts) {
      engine = parts.engine;
      const client = parts.db.client as { pool?: PoolCounts };
      unwatch = watchService({
        pool: () => client.pool,
        openWorkflows: async () => {
          if (connection && temporal) return openOnTemporal(connection, temporal.namespace);
          forgetClosed();
          const open = new Map<string, number>();
          for (const type of ids.values()) open.set(type, (open.get(type) ?? 0) + 1);
          return open;
        },
      });
    },
    async stop() {
      unwatch?.();
      await connection?.close();
    },
  };
}
