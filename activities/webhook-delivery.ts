// Activities of the webhook delivery workflows: thin adapters over the delivery services (one
// signed attempt, recorded; and failing a delivery when its retry ladder ends).
import type { ActivityDeps } from './deps';
import { failPendingDelivery } from '../db/webhook-deliveries';
import type { Resolver } from '../net/webhook-http';
import { attemptWebhookDelivery, type AttemptResult } from '../services/webhook-deliveries/attempt';

export type { AttemptResult };

export function createWebhookActivities(deps: ActivityDeps & { resolve?: Resolver }) {
  return {
    /** One attempt. `manual` (a re-send by hand) also sends a delivery that already ended. */
    attemptWebhookDelivery: (deliveryId: string, options: { manual?: boolean } = {}): Promise<AttemptResult> => attemptWebhookDelivery(deps, deliveryId, options),
    /** The ladder ended without a 2xx: the delivery fails. */
    failWebhookDelivery: (deliveryId: string): Promise<void> => failPendingDelivery(deps.db, deliveryId, deps.clock.now()),
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
