// A saved-card charge with the processor (POST /v1/cards/{id}/charge answered `processing`): asks
// the processor about it, 5 s after the charge and then at doubling intervals up to an hour
// (chargePollDelayMs), until the bank has answered; the activity records the outcome once
// (payment.succeeded or payment.failed) and the workflow ends with it. Started after the charge's
// commit, and at boot for every charge still `processing`, from the payment id alone.
import { continueAsNew, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { CardActivities } from '../activities/cards';
import { chargePollDelayMs } from '../domain/saved-cards';

export interface CardChargeInput {
  paymentId: string;
  /** Questions already asked by the runs before this one (continue-as-new). */
  asked?: number;
}

const { settleCharge } = proxyActivities<CardActivities>({
  startToCloseTimeout: '30 seconds',
  // A charge must reach its outcome: retried without limit, as a checkout's activities are.
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export async function cardCharge(input: CardChargeInput): Promise<'succeeded' | 'failed'> {
  for (let asked = input.asked ?? 0; ; asked++) {
    await sleep(chargePollDelayMs(asked));
    const result = await settleCharge(input.paymentId);
    if (result !== 'pending') return result;
    if (workflowInfo().continueAsNewSuggested) return continueAsNew<typeof cardCharge>({ paymentId: input.paymentId, asked: asked + 1 });
  }
}
