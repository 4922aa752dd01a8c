// The monthly limit's activities: a thin adapter over the reset service (safe to retry: each
// reset's notice is written once).
import type { ServiceDeps } from '../services/context';
import { sendLimitResets } from '../services/account/send-limit-resets';
import type { ActivityDeps } from './deps';

export function createAccountLimitActivities(deps: ActivityDeps) {
  const { db, clock, config, log } = deps;
  // The port is built after the activities: read when a service asks for it.
  const services: ServiceDeps = { db, clock, config, log, get workflows() { return deps.orchestration(); } };
  return {
    /** account.limit.reset for the month starting at `monthStart` (ISO 8601), to each account still due one. */
    sendLimitResets: (monthStart: string): Promise<number> => sendLimitResets(services, new Date(monthStart)),
  };
}

export type AccountLimitActivities = ReturnType<typeof createAccountLimitActivities>;
