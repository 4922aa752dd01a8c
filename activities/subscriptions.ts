// The subscription workflow's activities: thin adapters over services/subscriptions/.
import { expireIncomplete } from '../services/subscriptions/expire';
import { renewSubscription } from '../services/subscriptions/renew';
import { serviceDeps, type ActivityDeps } from './deps';

export function createSubscriptionActivities(deps: ActivityDeps) {
  const services = serviceDeps(deps);
  return {
    expireIncomplete: (subscriptionId: string): Promise<boolean> => expireIncomplete(services, subscriptionId),
    renewSubscription: (subscriptionId: string, periodEnd: number): Promise<number | null> => renewSubscription(services, subscriptionId, periodEnd),
  };
}

export type SubscriptionActivities = ReturnType<typeof createSubscriptionActivities>;
