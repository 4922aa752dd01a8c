// The refund workflow's activities: thin adapters over services/refunds/settle.ts, which asks the
// processor for a refund or where it stands and records a decided outcome once (safe to retry).
// Refunds asked about at the same moment (a burst of refund requests) are taken together
// (db/batched.ts), one batch at a time: those asked for while it runs go in the next, so under
// load the batches grow rather than their number.
import type { Processors } from '../processor';
import { settleRefunds, submitRefunds, type RefundProgress } from '../services/refunds/settle';
import { batched } from '../db/batched';
import { serviceDeps, type ActivityDeps } from './deps';

export type { RefundProgress };

/** The most refunds taken together. */
const REFUNDS_AT_ONCE = 25;

export function createRefundActivities(deps: ActivityDeps & { processors: Processors }) {
  const services = serviceDeps(deps, deps.processors);
  return {
    /** Asks the processor for the refund (once per refund, however often called). */
    submitRefund: batched((refundIds: string[]) => submitRefunds(services, refundIds), REFUNDS_AT_ONCE, 1),
    /** Asks the processor where the refund stands. */
    settleRefund: batched((refundIds: string[]) => settleRefunds(services, refundIds), REFUNDS_AT_ONCE, 1),
  };
}

export type RefundActivities = ReturnType<typeof createRefundActivities>;
