// The process's Prometheus metrics (prom-client), served at GET /metrics. One registry per process:
// the API, the activities and the orchestration all count into it. Gauges that describe a part
// (the database pool, open workflows) read it when scraped, from the parts the running service
// registered (`watch...`), so nothing is polled between scrapes. docs/operators/monitoring.md lists every
// metric with its labels.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type LabelValues } from 'prom-client';

export const registry = new Registry();

// Its _count is the number of requests: a separate counter would cost every request a second
// observation for the same figure.
const httpDuration = new Histogram({
  name: 'kasi_http_request_duration_seconds',
  help: 'Time from receiving a request to its answer (its _count: requests answered), by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

const workflowsStarted = new Counter({
  name: 'kasi_workflows_started_total',
  help: 'Workflows this process started through the orchestration port, by workflow type.',
  labelNames: ['workflow_type'] as const,
  registers: [registry],
});

const workflowStartFailures = new Counter({
  name: 'kasi_workflow_start_failures_total',
  help: 'Failed attempts to start a workflow after its object was committed (the first, and each background retry until it succeeds), by workflow type.',
  labelNames: ['workflow_type'] as const,
  registers: [registry],
});

/** How many starts each running retry loop holds (orchestration/start-retries.ts). */
const startsAwaitingRetry = new Set<() => number>();

new Gauge({
  name: 'kasi_workflow_starts_awaiting_retry',
  help: 'Workflow starts that failed after commit and have not succeeded yet (retried in the background).',
  registers: [registry],
  collect() {
    let total = 0;
    for (const count of startsAwaitingRetry) total += count();
    this.set(total);
  },
});

const webhookAttempts = new Counter({
  name: 'kasi_webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome: delivered (2xx), retried (failed, another attempt is scheduled), failed (failed, no attempt follows).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const webhookDuration = new Histogram({
  name: 'kasi_webhook_attempt_duration_seconds',
  help: 'How long each webhook attempt took (until the answer, the error or the timeout), by outcome.',
  labelNames: ['outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

/** What a pool reports: tarn's counts, as knex's pool exposes them. */
export interface PoolCounts {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

const pools = new Set<() => PoolCounts | undefined>();

function sumPools(count: (pool: PoolCounts) => number): number {
  let total = 0;
  for (const poolOf of pools) {
    const pool = poolOf();
    if (pool) total += count(pool);
  }
  return total;
}

new Gauge({
  name: 'kasi_db_pool_connections_used',
  help: 'Database connections in use.',
  registers: [registry],
  collect() {
    this.set(sumPools((p) => p.numUsed()));
  },
});

new Gauge({
  name: 'kasi_db_pool_connections_free',
  help: 'Database connections open and idle in the pool.',
  registers: [registry],
  collect() {
    this.set(sumPools((p) => p.numFree()));
  },
});

new Gauge({
  name: 'kasi_db_pool_pending_acquires',
  help: 'Queries waiting for a database connection.',
  registers: [registry],
  collect() {
    this.set(sumPools((p) => p.numPendingAcquires()));
  },
});

/** Open workflows by type, as the running orchestration reports them. */
export type OpenWorkflows = () => Promise<Map<string, number>>;

const openWorkflowSources = new Set<OpenWorkflows>();

new Gauge({
  name: 'kasi_workflows_open',
  help: 'Workflows running, by workflow type (embedded engine: its own runs; Temporal: the namespace, from visibility).',
  labelNames: ['workflow_type'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const source of openWorkflowSources) {
      for (const [type, count] of await source()) this.inc({ workflow_type: type }, count);
    }
  },
});

let defaultMetrics = false;

/**
 * Counts the database pool and the open workflows of a running service into the metrics, and the
 * process's own (CPU, memory, event loop, GC) from the first call. Returns the undo, for stop.
 */
export function watchService(parts: { pool: () => PoolCounts | undefined; openWorkflows: OpenWorkflows }): () => void {
  if (!defaultMetrics) {
    collectDefaultMetrics({ register: registry });
    defaultMetrics = true;
  }
  pools.add(parts.pool);
  openWorkflowSources.add(parts.openWorkflows);
  return () => {
    pools.delete(parts.pool);
    openWorkflowSources.delete(parts.openWorkflows);
  };
}

type HttpLabels = LabelValues<'method' | 'route' | 'status'>;

/**
 * The request metrics of one route template. Label children are made once per method and status
 * and kept, so a request costs a map lookup and one observation.
 */
export class RouteMetrics {
  private readonly children = new Map<string, Histogram.Internal<'method' | 'route' | 'status'>>();

  constructor(readonly route: string) {}

  observe(method: string, status: number, seconds: number): void {
    const key = `${method} ${status}`;
    let child = this.children.get(key);
    if (child === undefined) {
      const labels: HttpLabels = { method, route: this.route, status };
      child = httpDuration.labels(labels);
      this.children.set(key, child);
    }
    child.observe(seconds);
  }
}

export function workflowStarted(workflowType: string): void {
  workflowsStarted.inc({ workflow_type: workflowType });
}

export function workflowStartFailed(workflowType: string): void {
  workflowStartFailures.inc({ workflow_type: workflowType });
}

/** Counts a retry loop's waiting starts into kasi_workflow_starts_awaiting_retry; returns the undo. */
export function watchStartRetries(awaiting: () => number): () => void {
  startsAwaitingRetry.add(awaiting);
  return () => startsAwaitingRetry.delete(awaiting);
}

export type WebhookOutcome = 'delivered' | 'retried' | 'failed';

export function webhookAttempted(outcome: WebhookOutcome, latencyMs: number): void {
  webhookAttempts.inc({ outcome });
  webhookDuration.observe({ outcome }, latencyMs / 1000);
}
