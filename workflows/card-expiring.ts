// The card.expiring sweep of one month: waits for its instant (the 1st at 09:00, Sri Lankan time),
// then its activity sends card.expiring for the cards expiring next month and starts the next
// month's sweep. One workflow per month (`card-expiring/<YYYY-MM>`), so each run ends; the boot-time
// resumer starts the current month's, which runs at once if its instant has passed (a repeated
// sweep sends nothing twice).
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { CardActivities } from '../activities/cards';

export interface CardExpiringInput {
  /** ISO 8601: the sweep's instant. */
  sweepAt: string;
}

const { sendCardExpiringNotices } = proxyActivities<CardActivities>({
  // A month's cards, in batches of 500.
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '5 minutes' },
});

/** How many card.expiring events the sweep sent. */
export async function cardExpiringNotices(input: CardExpiringInput): Promise<number> {
  const wait = Date.parse(input.sweepAt) - Date.now();
  if (wait > 0) await sleep(wait);
  return sendCardExpiringNotices(input.sweepAt);
}
