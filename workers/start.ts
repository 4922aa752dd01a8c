// `npm start`: everything in one process on embedded defaults: the database (DATABASE_URL or the
// embedded PostgreSQL), migrations, the orchestration (Temporal with TEMPORAL_ADDRESS, else the
// embedded engine), the API and hosted pages. Prints `listening on http://HOST:PORT` when ready
// (tests and tools wait for that line), then where the docs are and how to make a merchant: what
// a newcomer needs next.
import { loadConfig } from '../config';
import { createLogger } from '../config/logger';
import { openDatabase } from '../db/connection';
import { purgeExpiredKeys } from '../db/idempotency-keys';
import { purgeMeterEvents } from '../db/meters';
import { USAGE_LIMITS } from '../domain/usage';
import { startService } from './service';
import { systemClock } from '../domain/clock';
import { SearchAttributesMissingError } from '../orchestration/search-attributes';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  if (!config.databaseUrl) log.info({ dataDir: config.dataDir }, 'DATABASE_URL unset: using the embedded PostgreSQL');
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, log: (line) => log.warn(line) });
  const service = await startService({ db: db.knex, databaseUrl: db.url, config, log });
  const running = service.http;
  const purge = setInterval(() => {
    purgeExpiredKeys(db.knex, systemClock.now()).catch((err: unknown) => log.warn({ err }, 'purging idempotency keys failed'));
    // Meter events past their identifiers' 35 days, a bounded batch an hour (their usage stays in its buckets).
    purgeMeterEvents(db.knex, systemClock.now(), USAGE_LIMITS.windowMs).catch((err: unknown) => log.warn({ err }, 'purging meter events failed'));
  }, 60 * 60 * 1000);
  purge.unref();
  const publicNote = running.config.publicBaseUrl === running.url ? '' : ` (public address ${running.config.publicBaseUrl})`;
  console.log(`listening on ${running.url}${publicNote}`);
  console.log(`docs: ${running.config.publicBaseUrl}/docs`);
  console.log('make a merchant: npx kasi merchant create --name "Your shop" --json');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    clearInterval(purge);
    await service.stop();
    await db.close();
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop(signal));
}

main().catch((err: unknown) => {
  // The operator's next step, without a stack trace around it.
  console.error(err instanceof SearchAttributesMissingError ? `refusing to start: ${err.message}` : err);
  process.exit(1);
});
