// One webhook delivery (an event to one endpoint): attempts on the retry ladder until one is
// answered 2xx, else the delivery ends failed. Startable from the database state: `attemptsMade`
// and `waitMs` resume the ladder where it was.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhook-delivery';
import { delayAfterAttempt } from '../domain/webhook-retry';

const { attemptWebhookDelivery, failWebhookDelivery } = proxyActivities<WebhookActivities>({
  // The HTTP exchange has its own 10-second budget; this covers the database work around it.
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumAttempts: 5 },
});

export async function webhookDelivery(deliveryId: string, resume: { attemptsMade: number; waitMs: number } = { attemptsMade: 0, waitMs: 0 }): Promise<'delivered' | 'failed'> {
  let attemptsMade = resume.attemptsMade;
  if (resume.waitMs > 0) await sleep(resume.waitMs);
  for (;;) {
    const { delivered, attemptNumber } = await attemptWebhookDelivery(deliveryId);
    if (delivered) return 'delivered';
    attemptsMade = attemptNumber;
    const delay = delayAfterAttempt(attemptsMade);
    if (delay === null) break;
    await sleep(delay);
  }
  await failWebhookDelivery(deliveryId);
  return 'failed';
}

/** A re-send by hand: one attempt, whatever the delivery's state. */
export async function webhookResend(deliveryId: string): Promise<boolean> {
  return (await attemptWebhookDelivery(deliveryId, { manual: true })).delivered;
}
