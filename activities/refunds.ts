// The refund workflow's activities: thin adapters over services/refunds/settle.ts, which asks the
// processor for a refund or where it stands and records a decided outcome once (safe to retry).
import type { Processors } from '../processor';
import { settleRefund, submitRefund, type RefundProgress } from '../services/refunds/settle';
import { serviceDeps, type ActivityDeps } from './deps';

export type { RefundProgress };

export function createRefundActivities(deps: ActivityDeps & { processors: Processors }) {
  const services = serviceDeps(deps, deps.processors);
  return {
    /** Asks the processor for the refund (once per refund, however often called). */
    submitRefund: (refundId: string): Promise<RefundProgress> => submitRefund(services, refundId),
    /** Asks the processor where the refund stands. */
    settleRefund: (refundId: string): Promise<RefundProgress> => settleRefund(services, refundId),
  };
}

export type RefundActivities = ReturnType<typeof createRefundActivities>;
