// Every activity the workflows call, built from factories that receive their dependencies. The
// Temporal worker and the embedded engine register the same set.
import type { ActivityFunction } from '@temporalio/common';
import { createProcessors } from '../processor';
import { createAccountLimitActivities } from './account-limits';
import { createCardActivities } from './cards';
import { createCheckoutActivities } from './checkouts';
import { createInvoiceActivities } from './invoices';
import { createRefundActivities } from './refunds';
import { createSubscriptionActivities } from './subscriptions';
import { createTestClockActivities } from './test-clocks';
import { createWebhookActivities } from './webhook-delivery';
import type { ActivityDeps } from './deps';

export type { ActivityDeps } from './deps';

export function createActivities(deps: ActivityDeps): Record<string, ActivityFunction> {
  const processors = createProcessors({ db: deps.db, clock: deps.clock, publicBaseUrl: () => deps.config.publicBaseUrl, secretKey: deps.config.secretKey, sandboxSettlementMs: deps.config.sandboxSettlementMs });
  return {
    ...createCheckoutActivities({ ...deps, processors }),
    ...createRefundActivities({ ...deps, processors }),
    ...createCardActivities({ ...deps, processors }),
    ...createWebhookActivities({ ...deps, resolve: deps.resolveHost }),
    ...createAccountLimitActivities(deps),
    ...createTestClockActivities(deps),
    ...createSubscriptionActivities(deps),
    ...createInvoiceActivities({ ...deps, processors }),
  };
}
