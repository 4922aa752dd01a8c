// The webhook dispatcher: turns the events outbox into deliveries and starts one delivery
// workflow per (event, endpoint), with a deterministic id so a repeated start is harmless.
// Woken at once by Postgres NOTIFY when an event commits (from any process), and every few
// seconds by a timer in case a notification was missed.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock';
import { EVENTS_CHANNEL } from '../db/events';
import { listenFor } from '../db/notifications';
import type { WebhookDeliveryRow } from '../db/webhook-deliveries';
import type { OrchestrationPort } from '../orchestration';
import { webhookDeliveryStart } from '../orchestration/starts';
import { dispatchEvents } from '../services/webhook-deliveries/dispatch';

const SWEEP_INTERVAL_MS = 5_000;

export interface WebhookDispatcher {
  /** Dispatches everything in the outbox now; resolves when the outbox is empty. */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

export async function startWebhookDispatcher(deps: { db: Knex; databaseUrl: string; port: OrchestrationPort; clock: Clock; log: Logger }): Promise<WebhookDispatcher> {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  // Deliveries committed but whose workflow did not start yet (the orchestration was briefly
  // unreachable): retried on every pass, so they wait seconds, not until the next boot.
  const unstarted = new Map<string, WebhookDeliveryRow>();

  async function startWorkflows(): Promise<void> {
    for (const d of unstarted.values()) {
      await deps.port.start(webhookDeliveryStart(d));
      unstarted.delete(d.id);
    }
  }

  async function dispatchAll(): Promise<void> {
    await startWorkflows();
    for (;;) {
      const deliveries = await dispatchEvents(deps);
      if (deliveries.length === 0) return;
      for (const d of deliveries) unstarted.set(d.id, d);
      await startWorkflows();
    }
  }

  /** One pass at a time; a wake-up during a pass runs one more pass after it. */
  function drain(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await dispatchAll();
        } while (again && !stopped);
      } finally {
        running = undefined;
      }
    })();
    return running;
  }

  const wake = () => void drain().catch((err: unknown) => deps.log.error({ err }, 'webhook dispatch failed'));
  // Back after losing its connection, it may have missed events: one pass at once.
  const listener = await listenFor(deps.databaseUrl, EVENTS_CHANNEL, { notified: wake, regained: wake }, deps.log);
  const sweep = setInterval(wake, SWEEP_INTERVAL_MS);
  sweep.unref();
  wake();

  return {
    drain,
    async stop() {
      stopped = true;
      clearInterval(sweep);
      const listening = listener.stop();
      await running?.catch(() => undefined);
      await listening;
    },
  };
}
