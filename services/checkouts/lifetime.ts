// Messages to a checkout's lifetime workflow from outside it: Pay's signal and the return page's
// update. Each starts the workflow first when it is missing (lost between commit and start, or
// not yet resumed); a closed workflow has nothing to add.
import type { CheckoutRow } from '../../db/checkouts';
import type { OrchestrationPort } from '../../orchestration';
import { WorkflowClosedError, WorkflowNotFoundError } from '../../orchestration/errors';
import { checkoutLifetimeStart } from '../../orchestration/starts';
import { attemptOutcomeUpdate, paymentAttemptedSignal } from '../../workflows/checkout-lifetime';

type Lifetime = Pick<CheckoutRow, 'id' | 'expires_at' | 'account_id' | 'mode'>;

async function toLifetime(workflows: OrchestrationPort, checkout: Lifetime, message: (workflowId: string) => Promise<unknown>): Promise<void> {
  const start = checkoutLifetimeStart(checkout);
  const send = () =>
    message(start.workflowId).catch((err: unknown) => {
      if (!(err instanceof WorkflowClosedError)) throw err;
    });
  try {
    await send();
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    await workflows.start(start);
    await send();
  }
}

/** Tells the checkout's workflow about an attempt: it asks the processor from then on. */
export function signalAttempt(workflows: OrchestrationPort, checkout: Lifetime, attempt: number): Promise<void> {
  return toLifetime(workflows, checkout, (workflowId) => workflows.signal(workflowId, paymentAttemptedSignal, [attempt]));
}

/** Waits for the checkout's workflow to have applied the attempt's outcome (an update it answers then). */
export function awaitAttemptOutcome(workflows: OrchestrationPort, checkout: Lifetime, attempt: number): Promise<void> {
  return toLifetime(workflows, checkout, (workflowId) => workflows.update(workflowId, attemptOutcomeUpdate, [attempt]));
}
