// The checkout lifetime's activities: thin adapters over the checkout services, which apply an
// attempt's outcome and close an expired checkout (each safe to retry).
import type { Processors } from '../processor';
import { expireCheckout } from '../services/checkouts/expire';
import { settleAttempt, type AttemptResult } from '../services/checkouts/settle-attempt';
import { serviceDeps, type ActivityDeps } from './deps';

export type { AttemptResult };

export function createCheckoutActivities(deps: ActivityDeps & { processors: Processors }) {
  const services = serviceDeps(deps, deps.processors);
  return {
    /** Reads the attempt's outcome from the processor and applies it. */
    settleAttempt: (checkoutId: string, attempt: number): Promise<AttemptResult> => settleAttempt(services, checkoutId, attempt),
    /** The 30 minutes are up: the checkout completes (paid after all) or expires; `pending` while the processor cannot tell. */
    closeCheckout: (checkoutId: string): Promise<'completed' | 'expired' | 'pending'> => expireCheckout(services, checkoutId),
  };
}

export type CheckoutActivities = ReturnType<typeof createCheckoutActivities>;
