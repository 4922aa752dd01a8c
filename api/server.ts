// Starting the HTTP service: the database (migrated), the app, and a listening server. Shared by
// `npm start` and the tests, which pass their own clock and configuration.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config';
import type { Clock } from '../domain/clock';
import { createApp, type App } from './app';

export interface RunningServer {
  app: App;
  server: Server;
  /** http://host:port as actually bound (port 0 picks a free one). */
  url: string;
  close(): Promise<void>;
}

export async function listen(
  deps: { db: Knex; config: Config; log: Logger; clock?: Clock; limiter?: RateLimiterAbstract },
  port = deps.config.port,
): Promise<RunningServer> {
  const app = createApp(deps);
  const server = app.koa.listen(port, deps.config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  // Keep-alive longer than common load balancers' idle timeout, so they close first.
  server.keepAliveTimeout = 65_000;
  const { port: bound } = server.address() as AddressInfo;
  return {
    app,
    server,
    url: `http://${deps.config.host}:${bound}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
