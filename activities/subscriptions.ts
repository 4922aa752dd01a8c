// The subscription workflow's activity: a thin adapter over services/subscriptions/step.ts, whose
// calls made at the same moment are taken in one transaction (db/batched.ts).
import type { SubscriptionDue } from '../domain/subscription-rules';
import { stepSubscriptions, type SteppedSubscription, type StepRequest } from '../services/subscriptions/step';
import { batched } from '../db/batched';
import { serviceDeps, type ActivityDeps } from './deps';

/** The most steps taken in one transaction. */
const STEPS_AT_ONCE = 25;

export function createSubscriptionActivities(deps: ActivityDeps) {
  const services = serviceDeps(deps);
  const step = batched((requests: StepRequest[]) => stepSubscriptions(services, requests), STEPS_AT_ONCE);
  return {
    stepSubscription: (subscriptionId: string, due: SubscriptionDue | null): Promise<SteppedSubscription> => step({ subscriptionId, due }),
  };
}

export type SubscriptionActivities = ReturnType<typeof createSubscriptionActivities>;
