// Every activity the workflows call, built from factories that receive their dependencies. The
// Temporal worker and the embedded engine register the same set.
import type { ActivityFunction } from '@temporalio/common';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Clock } from '../domain/clock';
import type { OrchestrationPort } from '../orchestration';
import { createProcessors } from '../processor';
import { createCheckoutActivities } from './checkouts';
import { createWebhookActivities } from './webhook-delivery';
import type { Resolver } from './webhook-http';

export interface ActivityDeps {
  db: Knex;
  clock: Clock;
  config: Config;
  log: Logger;
  /** The port, for activities that signal or start other workflows (read lazily: it is built after them). */
  orchestration(): OrchestrationPort;
  /** How webhook hosts are resolved (tests point names at chosen addresses); DNS by default. */
  resolveHost?: Resolver;
}

export function createActivities(deps: ActivityDeps): Record<string, ActivityFunction> {
  const processors = createProcessors({ db: deps.db, clock: deps.clock, publicBaseUrl: () => deps.config.publicBaseUrl });
  return {
    ...createCheckoutActivities({ ...deps, processors }),
    ...createWebhookActivities({ ...deps, resolve: deps.resolveHost }),
  };
}
