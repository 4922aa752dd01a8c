// What every service receives: where to read and write, the clock, the configuration, the
// orchestration port, and a place for effects that must wait for the commit. Routes, hosted pages,
// the CLI and activities each build one (see services/run.ts) and call the same service.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Mode } from '../domain/api-keys';
import type { Clock } from '../domain/clock';
import type { AccountRecord } from '../db/accounts';
import type { OrchestrationPort } from '../orchestration';
import type { Processors } from '../processor';
import type { Statement } from '../db/sql';

export interface ServiceContext {
  /** A transaction for writes of several statements; the pool for reads and one-statement writes. */
  db: Knex | Knex.Transaction;
  clock: Clock;
  config: Config;
  /** Starts, signals and updates workflows: from `afterCommit`, never inside the transaction. */
  workflows: OrchestrationPort;
  /** Work to do once the transaction has committed (workflow starts, notifications). */
  afterCommit(effect: () => Promise<void>): void;
}

/** A context whose writes are one transaction (services/run.ts `inTransaction`). */
export interface TransactionContext extends ServiceContext {
  db: Knex.Transaction;
  /**
   * Queues a write to go with the COMMIT, in one simple query (db/sql.ts commitWith), so a lock it
   * takes is never held across a round trip: for writes nothing after them in the transaction
   * reads. Given where nothing follows the service in the transaction (inTransaction), not in the
   * API's chain, which records the Idempotency-Key's answer last.
   */
  atCommit?: (statement: Statement) => void;
}

/** The merchant account a service acts for, and the mode (test or live) it acts in. */
export interface AccountScope {
  account: AccountRecord;
  mode: Mode;
}

/** What a caller outside a request (a page, the CLI, an activity) needs to build a context. */
export interface ServiceDeps {
  db: Knex;
  clock: Clock;
  config: Config;
  workflows: OrchestrationPort;
  log: Logger;
}

/** For services that talk to the card processor as well (outside their transactions). */
export interface ProcessorServiceDeps extends ServiceDeps {
  processors: Processors;
}
