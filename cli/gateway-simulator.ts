// `kasi gateway-simulator --port <p> [--api-password <pw>] [--notification-secret <s>]`: the
// Mastercard Gateway simulator in the foreground until interrupted. It needs no database.
import { parseArgs } from 'node:util';
import { startGatewaySimulator } from '../processor/gateway-simulator';

export const GATEWAY_SIMULATOR_USAGE = '  kasi gateway-simulator --port <p> [--api-password <pw>] [--notification-secret <s>]\n';

export async function runGatewaySimulator(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: { port: { type: 'string' }, 'api-password': { type: 'string' }, 'notification-secret': { type: 'string' } },
  });
  const port = Number(values.port);
  if (values.port === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`kasi: --port takes a port number (0 to 65535)\n\nusage:\n${GATEWAY_SIMULATOR_USAGE}`);
    return 2;
  }
  const simulator = await startGatewaySimulator({ port, apiPassword: values['api-password'], notificationSecret: values['notification-secret'] ?? null });
  process.stdout.write(`listening on ${simulator.url}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await simulator.close();
  return 0;
}
