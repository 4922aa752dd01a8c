// What every activity factory receives, in a module of its own so that the factories and
// activities/index.ts, which assembles them, do not import each other.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Clock } from '../domain/clock';
import type { OrchestrationPort } from '../orchestration';
import type { Resolver } from '../net/webhook-http';

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
