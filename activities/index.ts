// Every activity the workflows call, built from factories that receive their dependencies. The
// Temporal worker and the embedded engine register the same set.
import type { ActivityFunction } from '@temporalio/common';
import { createProcessors } from '../processor';
import { createCheckoutActivities } from './checkouts';
import { createWebhookActivities } from './webhook-delivery';
import type { ActivityDeps } from './deps';

export type { ActivityDeps } from './deps';

export function createActivities(deps: ActivityDeps): Record<string, ActivityFunction> {
  const processors = createProcessors({ db: deps.db, clock: deps.clock, publicBaseUrl: () => deps.config.publicBaseUrl });
  return {
    ...createCheckoutActivities({ ...deps, processors }),
    ...createWebhookActivities({ ...deps, resolve: deps.resolveHost }),
  };
}
