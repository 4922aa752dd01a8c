// One attempt of a delivery by hand (a ping, or a re-send), in a workflow run of its own.
import type { WebhookDeliveryRow } from '../../db/webhook-deliveries';
import { webhookResendStart } from '../../orchestration/starts';
import type { ServiceContext } from '../context';

/** Starts the delivery's one attempt once it is committed (its workflow reads it from the database). */
export function sendOnceAfterCommit(ctx: ServiceContext, delivery: WebhookDeliveryRow): void {
  ctx.afterCommit(async () => {
    await ctx.workflows.start(webhookResendStart(delivery));
  });
}
