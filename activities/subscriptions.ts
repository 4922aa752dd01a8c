// The subscription workflow's activity: a thin adapter over services/subscriptions/step.ts.
import type { SubscriptionDue } from '../domain/subscription-rules';
import { stepSubscription, type SteppedSubscription } from '../services/subscriptions/step';
import { serviceDeps, type ActivityDeps } from './deps';

export function createSubscriptionActivities(deps: ActivityDeps) {
  const services = serviceDeps(deps);
  return {
    stepSubscription: (subscriptionId: string, due: SubscriptionDue | null): Promise<SteppedSubscription> => stepSubscription(services, subscriptionId, due),
  };
}

export type SubscriptionActivities = ReturnType<typeof createSubscriptionActivities>;
