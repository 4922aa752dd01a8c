// `npm run start:temporal`: Kasi on a real Temporal, on one machine. Starts Temporal's development
// server with its Web UI on loopback (scripts/install-temporal.sh installs the CLI), then runs
// `npm start`'s service with TEMPORAL_ADDRESS pointing at it (which registers Kasi's search
// attributes, as on any server that allows it), and prints where the API and the Web UI are.
// Ctrl-C stops the service, then the server.
//
// KASI_TEMPORAL_PORT and KASI_TEMPORAL_UI_PORT choose the ports (free ones by default); the
// server keeps its workflows in KASI_DATA_DIR/temporal-dev.db, beside the embedded PostgreSQL's
// data, so a restart finds both where they were.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { loadConfig } from '../config';
import { nodeCommandFor, PROJECT_ROOT, startTemporalDevServer } from './temporal-dev-server';
import { missingToolMessage, toolPath } from './tools';

function portFromEnv(name: string): number | undefined {
  const raw = process.env[name];
  if (!raw) return undefined;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a port number, got "${raw}"`);
  return Number(raw);
}

async function main(): Promise<void> {
  const cli = toolPath('temporal');
  if (!cli) {
    console.error(missingToolMessage('temporal'));
    process.exit(2);
  }
  const config = loadConfig();
  mkdirSync(config.dataDir, { recursive: true });
  const server = await startTemporalDevServer({
    cli,
    port: portFromEnv('KASI_TEMPORAL_PORT'),
    uiPort: portFromEnv('KASI_TEMPORAL_UI_PORT'),
    namespace: config.temporalNamespace,
    dbFilename: path.join(config.dataDir, 'temporal-dev.db'),
    onOutput: (line) => console.error(`[temporal] ${line}`),
  });
  // Ends the server even when this process dies of an error (it runs in its own process group).
  process.once('exit', () => server.process.kill('SIGKILL'));

  const { command, args } = nodeCommandFor('start');
  // Its own process group as well: only this script signals it, once.
  const service = spawn(command, args, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  const serviceExit = new Promise<number>((resolve) => service.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  createInterface({ input: service.stdout! }).on('line', (line) => {
    console.log(line);
    const listening = /^listening on (\S+)/.exec(line);
    if (listening) {
      const ui = `${server.uiUrl}/namespaces/${encodeURIComponent(server.namespace)}/workflows`;
      console.log(
        [
          '',
          "Kasi on Temporal's development server:",
          `  API and hosted pages  ${listening[1]}`,
          `  Temporal Web UI       ${ui}`,
          `  TEMPORAL_ADDRESS      ${server.address} (namespace ${server.namespace}); more workers: TEMPORAL_ADDRESS=${server.address} npm run worker`,
          '  Ctrl-C stops everything.',
          '',
        ].join('\n'),
      );
    }
  });

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    service.kill(signal);
    setTimeout(() => service.kill('SIGKILL'), 30_000).unref();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stop(signal));
  const code = await serviceExit;
  await server.stop();
  process.exit(stopping ? 0 : code || 1);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
