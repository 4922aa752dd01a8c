// Starting the HTTP service: the database (migrated), the app, and a listening server. Shared by
// `npm start` and the tests, which pass their own clock and configuration.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withBoundPort, type Config } from '../config';
import { createApp, type App, type AppDeps } from './app';

export interface RunningServer {
  app: App;
  server: Server;
  config: Config;
  /** http://host:port as actually bound (port 0 picks a free one). */
  url: string;
  close(): Promise<void>;
}

export async function listen(
  deps: AppDeps,
  port = deps.config.port,
): Promise<RunningServer> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
    server.listen(port, deps.config.host);
  });
  // Keep-alive longer than common load balancers' idle timeout, so they close first.
  server.keepAliveTimeout = 65_000;
  const { port: bound } = server.address() as AddressInfo;
  const config = withBoundPort(deps.config, bound);
  const app = createApp({ ...deps, config });
  const handle = app.koa.callback();
  server.on('request', (req, res) => void handle(req, res));
  return {
    app,
    server,
    config,
    url: `http://${config.host}:${bound}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
