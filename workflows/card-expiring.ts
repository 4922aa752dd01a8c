// card.expiring, once a month: on the 1st at 09:00, Sri Lankan time, the activity sends it for the
// active cards expiring next month (once per card). One workflow for the whole service
// (`card-expiring/monthly`), started at boot by its resumer. Each run first has the sweep of the
// month it runs in made (at once if its instant has passed: a sweep missed while the service was
// down runs late rather than never, and sends nothing twice), then sleeps until the next month's
// instant and continues as new there, so no history grows past one month.
import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { CardActivities } from '../activities/cards';
import { expiringSweepAt, nextExpiringSweepAt } from '../domain/saved-cards';

const { sendCardExpiringNotices } = proxyActivities<CardActivities>({
  // A month's cards, in batches.
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '5 minutes' },
});

export async function cardExpiringNotices(): Promise<never> {
  const sweepAt = expiringSweepAt(new Date(Date.now()));
  if (sweepAt.getTime() > Date.now()) await sleep(sweepAt.getTime() - Date.now());
  await sendCardExpiringNotices(sweepAt.toISOString());
  await sleep(nextExpiringSweepAt(sweepAt).getTime() - Date.now());
  return continueAsNew<typeof cardExpiringNotices>();
}
