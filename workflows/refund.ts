// A refund with the processor, from POST /v1/refunds (answered `pending`) to its outcome. The
// processor refunds only settled payments, so it may answer pending for a while: until the moment
// it says it expects to decide (the sandbox: the payment's settlement, seconds after it was paid;
// a live processor: the next bank working day), else a minute later, doubling up to an hour. The
// activities record the outcome once (refund.succeeded, or refund.failed with its amount
// refundable again), and the workflow ends with it. Started after the refund's commit, and at
// boot for every refund still pending, from the refund id alone: asking for the refund again is
// harmless, the processor makes one per refund.
import { continueAsNew, sleep, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { RefundActivities } from '../activities/refunds';

export interface PaymentRefundInput {
  refundId: string;
  /** Questions already asked by the runs before this one (continue-as-new). */
  asked?: number;
}

const { submitRefund, settleRefund } = proxyActivities<RefundActivities>({
  startToCloseTimeout: '30 seconds',
  // A refund must reach its outcome: retried without limit, as a checkout's activities are.
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

const FIRST_POLL_MS = 60_000;
const LAST_POLL_MS = 60 * 60_000;

/** Until the moment the processor named, if it is still ahead; else a minute, doubling up to an hour. */
function waitMs(askAt: string | null, asked: number): number {
  const named = askAt === null ? 0 : Date.parse(askAt) - Date.now();
  return named > 0 ? named : Math.min(FIRST_POLL_MS * 2 ** asked, LAST_POLL_MS);
}

export async function paymentRefund(input: PaymentRefundInput): Promise<'succeeded' | 'failed'> {
  let progress = await submitRefund(input.refundId);
  for (let asked = input.asked ?? 0; progress.status === 'pending'; asked++) {
    if (workflowInfo().continueAsNewSuggested) return continueAsNew<typeof paymentRefund>({ refundId: input.refundId, asked });
    await sleep(waitMs(progress.askAt, asked));
    progress = await settleRefund(input.refundId);
  }
  return progress.status;
}
