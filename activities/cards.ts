// The saved cards' activities: thin adapters over the card services, which settle a charge with
// the processor and send a month's card.expiring (each safe to retry). Charges asked about at the
// same moment (those made in one burst, due together) are settled together (db/batched.ts), one
// batch at a time: those due while it runs go in the next.
import type { Processors } from '../processor';
import { sendExpiringNotices } from '../services/cards/send-expiring';
import { settleCharges, type ChargeResult } from '../services/cards/settle-charge';
import { batched } from '../db/batched';
import { serviceDeps, type ActivityDeps } from './deps';

export type { ChargeResult };

/** The most charges settled together. */
const SETTLED_AT_ONCE = 25;

export function createCardActivities(deps: ActivityDeps & { processors: Processors }) {
  const services = serviceDeps(deps, deps.processors);
  const settle = batched((paymentIds: string[]) => settleCharges(services, paymentIds), SETTLED_AT_ONCE, 1);
  return {
    /** Asks the processor about the charge and records its outcome once decided. */
    settleCharge: (paymentId: string): Promise<ChargeResult> => settle(paymentId),
    /** The card.expiring of the sweep at `sweepAt` (ISO 8601); how many were sent. */
    sendCardExpiringNotices: (sweepAt: string): Promise<number> => sendExpiringNotices(services, new Date(sweepAt)),
  };
}

export type CardActivities = ReturnType<typeof createCardActivities>;
