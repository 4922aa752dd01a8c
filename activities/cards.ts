// The saved cards' activities: thin adapters over the card services, which settle a charge with
// the processor and send a month's card.expiring (each safe to retry).
import type { Processors } from '../processor';
import { sendExpiringNotices } from '../services/cards/send-expiring';
import { settleCharge, type ChargeResult } from '../services/cards/settle-charge';
import { serviceDeps, type ActivityDeps } from './deps';

export type { ChargeResult };

export function createCardActivities(deps: ActivityDeps & { processors: Processors }) {
  const services = serviceDeps(deps, deps.processors);
  return {
    /** Asks the processor about the charge and records its outcome once decided. */
    settleCharge: (paymentId: string): Promise<ChargeResult> => settleCharge(services, paymentId),
    /** The card.expiring of the sweep at `sweepAt` (ISO 8601); how many were sent. */
    sendCardExpiringNotices: (sweepAt: string): Promise<number> => sendExpiringNotices(services, new Date(sweepAt)),
  };
}

export type CardActivities = ReturnType<typeof createCardActivities>;
