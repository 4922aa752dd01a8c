// The monthly limit's reset: `account.limit.reset` at midnight on the 1st, Sri Lankan time. One
// workflow for the whole service (`limit-reset/monthly`), started at boot by its resumer. Each run
// first has the resets of the month it runs in sent (none are left unless the service was down when
// the month began: they go out late rather than never, and never twice), then sleeps until the next
// month begins and continues as new there, so no history grows past one month.
import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { AccountLimitActivities } from '../activities/account-limits';
import { colomboMonth } from '../domain/time';

const { sendLimitResets } = proxyActivities<AccountLimitActivities>({
  // Every account told of the limit last month, in batches.
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '5 minutes' },
});

export async function monthlyLimitReset(): Promise<never> {
  const month = colomboMonth(new Date(Date.now()));
  await sendLimitResets(month.start.toISOString());
  await sleep(month.end.getTime() - Date.now());
  return continueAsNew<typeof monthlyLimitReset>();
}
