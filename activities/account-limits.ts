// The monthly limit's activities: a thin adapter over the reset service (safe to retry: each
// reset's notice is written once).
import { sendLimitResets } from '../services/account/send-limit-resets';
import { serviceDeps, type ActivityDeps } from './deps';

export function createAccountLimitActivities(deps: ActivityDeps) {
  const services = serviceDeps(deps);
  return {
    /** account.limit.reset for the month starting at `monthStart` (ISO 8601), to each account still due one. */
    sendLimitResets: (monthStart: string): Promise<number> => sendLimitResets(services, new Date(monthStart)),
  };
}

export type AccountLimitActivities = ReturnType<typeof createAccountLimitActivities>;
