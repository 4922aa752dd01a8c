// What every activity factory receives, in a module of its own so that the factories and
// activities/index.ts, which assembles them, do not import each other.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Clock } from '../domain/clock';
import type { OrchestrationPort } from '../orchestration';
import type { Resolver } from '../net/webhook-http';
import type { Processors } from '../processor';
import type { ProcessorServiceDeps, ServiceDeps } from '../services/context';

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

/**
 * What the services an activity calls take: the activity's dependencies, with the orchestration
 * port read only when a service asks for it (the port is built after the activities).
 */
export function serviceDeps(deps: ActivityDeps): ServiceDeps;
export function serviceDeps(deps: ActivityDeps, processors: Processors): ProcessorServiceDeps;
export function serviceDeps(deps: ActivityDeps, processors?: Processors): ServiceDeps | ProcessorServiceDeps {
  const { db, clock, config, log } = deps;
  return {
    db,
    clock,
    config,
    log,
    ...(processors === undefined ? {} : { processors }),
    get workflows() {
      return deps.orchestration();
    },
  };
}
