// Kasi as `npm start` runs it (API, platform chain, embedded engine), on DATABASE_URL, with the
// rate limit raised out of the way of the load (its check still runs on every request).
import pino from 'pino';
import { loadConfig } from '../../config';
import { connect } from '../../db/connection';
import { startService } from '../../workers/service';

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'silent' });
  const service = await startService({ db: connect(config.databaseUrl!, 10), databaseUrl: config.databaseUrl!, config, log: pino({ level: 'silent' }), port: 0 });
  console.log(`listening on ${service.http.url}`);
  // A normal exit on SIGTERM, so a --cpu-prof profile is written.
  process.once('SIGTERM', () => process.exit(0));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
