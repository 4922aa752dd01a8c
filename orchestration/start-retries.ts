// A workflow start that fails after its object was committed (the server is away, or refuses the
// start) is never silent: the port below logs it, counts it (kasi_workflow_start_failures_total),
// and tries again in the background with a backoff capped at `maxDelayMs` until the start succeeds,
// while the caller (a request's after-commit effect) goes on at once. What waits is counted too
// (kasi_workflow_starts_awaiting_retry). A process that stops drops what still waits: its
// objects are not final, so the boot-time resumers of the next process start their workflows.
import { watchStartRetries, workflowStartFailed } from '../config/metrics';
import type { EngineLog } from '../workers/embedded-engine/log';
import { WorkflowStartRetryingError } from './errors';
import type { OrchestrationPort, WorkflowStart } from './port';

export interface StartRetries {
  /** The port whose `start` retries in the background once it has failed. */
  port: OrchestrationPort;
  /** Starts waiting for their next attempt. */
  awaiting(): number;
  /** Stops retrying (the process is stopping). */
  stop(): void;
}

export function retryFailedStarts(port: OrchestrationPort, options: { log: EngineLog; firstDelayMs?: number; maxDelayMs?: number }): StartRetries {
  const { log } = options;
  const firstDelayMs = options.firstDelayMs ?? 1_000;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  // By workflow id: a start that fails again while it waits keeps one place in the queue.
  const waiting = new Map<string, { attempt: number; timer: NodeJS.Timeout }>();
  let stopped = false;

  const delayBefore = (attempt: number) => Math.min(maxDelayMs, firstDelayMs * 2 ** (attempt - 2));

  const failed = (start: WorkflowStart, err: unknown, attempt: number) => {
    workflowStartFailed(start.workflowType);
    clearTimeout(waiting.get(start.workflowId)?.timer);
    const retryInMs = delayBefore(attempt + 1);
    const fields = { workflowId: start.workflowId, workflowType: start.workflowType, attempt, retryInMs, err };
    if (attempt === 1) log.error(fields, 'workflow start failed after commit; retrying in the background');
    else log.warn(fields, 'workflow start failed again; retrying');
    const timer = setTimeout(() => void retry(start, attempt + 1), retryInMs);
    timer.unref();
    waiting.set(start.workflowId, { attempt, timer });
  };

  const retry = async (start: WorkflowStart, attempt: number) => {
    if (stopped) return;
    try {
      await port.start(start);
      waiting.delete(start.workflowId);
      log.info({ workflowId: start.workflowId, workflowType: start.workflowType, attempt }, 'workflow started on a retry');
    } catch (err) {
      if (!stopped) failed(start, err, attempt);
    }
  };

  const unwatch = watchStartRetries(() => waiting.size);
  return {
    port: {
      ...port,
      async start(start) {
        try {
          const result = await port.start(start);
          // Started by another way in (a resumer, a signal's start) while its retry waited.
          const pending = waiting.get(start.workflowId);
          if (pending !== undefined) {
            clearTimeout(pending.timer);
            waiting.delete(start.workflowId);
          }
          return result;
        } catch (err) {
          if (stopped) throw err;
          failed(start, err, (waiting.get(start.workflowId)?.attempt ?? 0) + 1);
          throw new WorkflowStartRetryingError(start.workflowId, err);
        }
      },
    },
    awaiting: () => waiting.size,
    stop() {
      stopped = true;
      for (const { timer } of waiting.values()) clearTimeout(timer);
      waiting.clear();
      unwatch();
    },
  };
}
