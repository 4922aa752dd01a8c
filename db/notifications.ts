// A Postgres LISTEN connection that comes back by itself. What relies on notifications hears when
// the connection is lost (it may have missed some) and when it is back, so it can fall back in
// between and catch up after.
import pg from 'pg';
import type { Logger } from 'pino';

const FIRST_RETRY_MS = 500;
const LONGEST_RETRY_MS = 30_000;

export interface NotificationHandlers {
  notified(): void;
  /** The connection is gone: notifications from now on are missed until `regained`. */
  lost?(): void;
  regained?(): void;
}

export interface Listener {
  /** Whether notifications arrive right now. */
  readonly listening: boolean;
  stop(): Promise<void>;
}

/** Listens on `channel`; the first connection must succeed, later ones are retried with backoff. */
export async function listenFor(databaseUrl: string, channel: string, handlers: NotificationHandlers, log: Logger): Promise<Listener> {
  let client: pg.Client | undefined;
  let listening = false;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString: databaseUrl, application_name: `kasi-listen-${channel}` });
    // Once stopping, an error is expected: the database may be going down with the service (a
    // terminal's Ctrl-C reaches the embedded PostgreSQL too).
    next.on('error', (err) => (stopped ? log.debug : log.warn).call(log, { err, channel }, 'notification connection error'));
    next.on('notification', () => handlers.notified());
    next.once('end', () => {
      if (client !== next || stopped) return;
      client = undefined;
      listening = false;
      handlers.lost?.();
      log.warn({ channel }, 'notification connection lost; reconnecting');
      schedule();
    });
    try {
      await next.connect();
      await next.query(`listen ${channel}`);
    } catch (err) {
      await next.end().catch(() => undefined);
      throw err;
    }
    if (stopped) {
      await next.end();
      return;
    }
    client = next;
    listening = true;
  }

  function schedule(): void {
    const delay = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** failures);
    retry = setTimeout(() => {
      retry = undefined;
      connect().then(
        () => {
          failures = 0;
          if (listening) handlers.regained?.();
        },
        (err: unknown) => {
          failures++;
          log.warn({ err, channel }, 'notification connection: reconnect failed');
          if (!stopped) schedule();
        },
      );
    }, delay);
    retry.unref();
  }

  await connect();
  return {
    get listening() {
      return listening;
    },
    async stop() {
      stopped = true;
      listening = false;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
