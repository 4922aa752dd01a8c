// The subscription workflow's activities: thin adapters over services/subscriptions/.
import { renewSubscription } from '../services/subscriptions/renew';
import { serviceDeps, type ActivityDeps } from './deps';

export function createSubscriptionActivities(deps: ActivityDeps) {
  const services = serviceDeps(deps);
  return {
    renewSubscription: (subscriptionId: string, periodEnd: number): Promise<number | null> => renewSubscription(services, subscriptionId, periodEnd),
  };
}

export type SubscriptionActivities = ReturnType<typeof createSubscriptionActivities>;
