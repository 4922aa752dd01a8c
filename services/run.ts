// Runs a service in a transaction of its own and, once it has committed, the effects it asked for:
// how hosted pages, the CLI and activities call services (the API's chain does the same in
// api/platform/execute.ts, with the Idempotency-Key in the transaction).
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { commitWith, isTransaction, sql, type Statement } from '../db/sql';
import type { ServiceContext, ServiceDeps, TransactionContext } from './context';

export type Effect = () => Promise<void>;

/**
 * Runs effects in order after the commit. The change is committed whatever they do: a failed
 * effect is recovered from the database (the boot-time restart, the event outbox), so it is logged
 * rather than thrown.
 */
export async function runEffects(effects: readonly Effect[], log: Logger, context: Record<string, unknown> = {}): Promise<void> {
  for (const effect of effects) {
    await effect().catch((err: unknown) => log.error({ err, ...context }, 'after-commit effect failed'));
  }
}

/**
 * A context over `db` whose effects are collected into `effects`. The port is read when used: an
 * activity the boot-time resumers start runs before the service has its port (ActivityDeps).
 */
export function serviceContext<Db extends Knex | Knex.Transaction>(deps: ServiceDeps, db: Db, effects: Effect[]): ServiceContext & { db: Db } {
  return {
    db,
    clock: deps.clock,
    config: deps.config,
    get workflows() {
      return deps.workflows;
    },
    afterCommit: (effect) => effects.push(effect),
  };
}

/** The service's work in one transaction; its effects run once that has committed. */
export async function inTransaction<T>(deps: ServiceDeps, work: (ctx: TransactionContext & Required<Pick<TransactionContext, 'atCommit'>>) => Promise<T>): Promise<T> {
  const effects: Effect[] = [];
  const result = await deps.db.transaction(async (trx) => {
    const last: Statement[] = [];
    // Assigned, not spread: the context's port is a getter, read only when used.
    const done = await work(Object.assign(serviceContext(deps, trx, effects), { atCommit: (statement: Statement) => void last.push(statement) }));
    // The contended writes last: a renewal batch's invoice numbers are taken in its final statements.
    if (last.length > 0) await commitWith(trx, [...last.filter((s) => s.contended !== true), ...last.filter((s) => s.contended === true)]);
    return done;
  });
  await runEffects(effects, deps.log);
  return result;
}

/**
 * The context of a write whose `db` is its transaction: what the API gives a write (it runs each
 * in one unless the route says otherwise), checked rather than assumed.
 */
export function transactional(ctx: ServiceContext): TransactionContext {
  if (!isTransaction(ctx.db)) throw new Error('this service writes in a transaction: none was given');
  return ctx as TransactionContext;
}

/**
 * Writes `statement` with the transaction's COMMIT where its runner allows it (inTransaction), else
 * now: for a write nothing after it in the transaction reads.
 */
export async function writeLast(ctx: TransactionContext, statement: Statement): Promise<void> {
  if (ctx.atCommit !== undefined) ctx.atCommit(statement);
  else await sql(ctx.db, statement.text, [...statement.values]);
}
