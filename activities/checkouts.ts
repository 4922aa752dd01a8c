// The checkout lifetime's activities: thin adapters over the checkout services, which apply an
// attempt's outcome and close an expired checkout (each safe to retry).
import type { Processors } from '../processor';
import { expireCheckout } from '../services/checkouts/expire';
import { settleAttempt, type AttemptResult } from '../services/checkouts/settle-attempt';
import type { ProcessorServiceDeps } from '../services/context';
import type { ActivityDeps } from './deps';

export type { AttemptResult };

export function createCheckoutActivities(deps: ActivityDeps & { processors: Processors }) {
  const services: ProcessorServiceDeps = {
    db: deps.db,
    clock: deps.clock,
    config: deps.config,
    log: deps.log,
    processors: deps.processors,
    // Built after the activities: read when a service asks for it.
    get workflows() {
      return deps.orchestration();
    },
  };
  return {
    /** Reads the attempt's outcome from the processor and applies it. */
    settleAttempt: (checkoutId: string, attempt: number): Promise<AttemptResult> => settleAttempt(services, checkoutId, attempt),
    /** The 30 minutes are up: the checkout completes (paid after all) or expires. */
    closeCheckout: (checkoutId: string): Promise<'completed' | 'expired'> => expireCheckout(services, checkoutId),
  };
}

export type CheckoutActivities = ReturnType<typeof createCheckoutActivities>;
