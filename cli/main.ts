// The `kasi` command-line tool. It uses the server's environment (DATABASE_URL, or the embedded
// PostgreSQL under KASI_DATA_DIR: the running server's if there is one), so both see the same
// data. Output shapes with --json are a fixed contract (DESIGN.md).
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig, type Config } from '../config';
import { openDatabase, type Database } from '../db/connection';
import { checkSecretKey, serverWebhookLoopbackRule } from '../db/installation';
import { systemClock } from '../domain/clock';
import type { OrchestrationPort } from '../orchestration';
import { commands, UsageError } from './commands';
import { emailCommands } from './emails';
import { GATEWAY_SIMULATOR_USAGE, runGatewaySimulator } from './gateway-simulator';
import { priceCommands } from './prices';
import { processorCommands } from './processors';
import { upgradeRequestCommands } from './upgrade-requests';
import { shownLines } from './text';

const USAGE = `usage: kasi <command> [--json]

  kasi migrate [--status]
  kasi merchant create --name <name> [--plan <plan>]
  kasi merchant activate <accountId>
  kasi merchant set <accountId> [--saved-cards on|off] [--plan <plan>] [--status active|suspended] [--dunning-end unpaid|canceled]
                    [--proration second|day] [--billing-cycle-anchor now|first_of_month]
  kasi key create <accountId> --kind secret|publishable|agent --mode test|live [--permissions a,b] [--expires <ISO time>]
  kasi key revoke <key-or-id>
  kasi webhook add <accountId> --url <url> --mode test|live [--events type,type]
  kasi webhook rotate <endpointId>
  kasi webhook list <accountId>
  kasi webhook enable|disable <endpointId>
  kasi webhook attempts <endpointId>
  kasi webhook ping <endpointId>
  kasi upgrade-requests list [--status pending|approved|declined]
  kasi upgrade-requests approve <upgradeRequestId>
  kasi upgrade-requests decline <upgradeRequestId> [--reason <text>]
  kasi price archive <priceId>
  kasi emails <accountId> [--mode test|live]
  kasi email <emailId>
  kasi processor set <accountId> --mode live|test --gateway-url <url> --merchant-id <id> --api-password <pw> [--notification-secret <s>]
  kasi processor show <accountId>
${GATEWAY_SIMULATOR_USAGE}`;

/**
 * The CLI starts no workflows: the services it calls ask for none (`kasi webhook ping` makes its
 * attempt itself, to print it). Should one ever ask, the command's after-commit effect fails with
 * this, on stderr.
 */
const refuse = (): Promise<never> => Promise.reject(new Error('the kasi CLI starts no workflows'));
const NO_WORKFLOWS: OrchestrationPort = { engine: 'embedded', start: refuse, signal: refuse, signalWithStart: refuse, query: refuse, update: refuse, cancel: refuse, describe: refuse };

const COMMON_OPTIONS = {
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const OPTIONS = {
  ...COMMON_OPTIONS,
  name: { type: 'string' },
  plan: { type: 'string' },
  'saved-cards': { type: 'string' },
  'dunning-end': { type: 'string' },
  proration: { type: 'string' },
  'billing-cycle-anchor': { type: 'string' },
  status: { type: 'string' },
  kind: { type: 'string' },
  mode: { type: 'string' },
  permissions: { type: 'string' },
  expires: { type: 'string' },
  url: { type: 'string' },
  events: { type: 'string' },
  reason: { type: 'string' },
  'gateway-url': { type: 'string' },
  'merchant-id': { type: 'string' },
  'api-password': { type: 'string' },
  'notification-secret': { type: 'string' },
} as const;

// `migrate --status` is a flag where `merchant set --status` takes a value, so migrate has its own.
const MIGRATE_OPTIONS = { ...COMMON_OPTIONS, status: { type: 'boolean', default: false } } as const;

async function main(argv: string[]): Promise<number> {
  // A server of its own, with no database: it runs until interrupted.
  if (argv[0] === 'gateway-simulator') return runGatewaySimulator(argv.slice(1));
  // A lenient first pass finds the command (an option's value is never taken for it).
  const first = parseArgs({ args: argv, allowPositionals: true, strict: false, options: OPTIONS }).positionals[0];
  const { values, positionals } =
    first === 'migrate'
      ? parseArgs({ args: argv, allowPositionals: true, strict: true, options: MIGRATE_OPTIONS })
      : parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS });
  const [group, verb, ...rest] = positionals;
  const all = { ...commands, ...upgradeRequestCommands, ...priceCommands, ...emailCommands, ...processorCommands };
  // A one-word command (`migrate`, `emails`) takes every positional after it as its arguments.
  const oneWord = group !== undefined && all[group] !== undefined;
  const name = oneWord || !verb ? (group ?? '') : `${group} ${verb}`;
  const args = oneWord ? [verb, ...rest].filter((a): a is string => !!a) : rest;
  const command = all[name];
  if (values.help || !command) {
    (values.help ? process.stdout : process.stderr).write(USAGE);
    return values.help ? 0 : 2;
  }
  let config: Config = loadConfig();
  let db: Database | undefined;
  try {
    // `migrate` applies (and reports) the migrations itself, or with --status only reads them; it
    // seals no secret, so it needs no key.
    const migrating = group === 'migrate';
    db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: 2, migrate: !migrating });
    if (db.startedEmbeddedIn) process.stderr.write(`kasi: no database was running in ${db.startedEmbeddedIn}; started one, which stops when this command ends unless another process is using it\n`);
    if (!migrating) {
      // The CLI seals webhook secrets the server opens: one key, and the server's loopback rule.
      await checkSecretKey(db.knex, config.secretKey(), systemClock.now());
      const loopback = await serverWebhookLoopbackRule(db.knex);
      if (loopback !== undefined) config = { ...config, webhookAllowLoopback: loopback };
    }
    // stdout is the command's answer: only errors are logged, to stderr.
    const log = pino({ level: 'error' }, pino.destination({ dest: 2, sync: true }));
    const deps = { db: db.knex, clock: systemClock, config, workflows: NO_WORKFLOWS, log };
    const out = await command({ deps, args, options: values });
    process.stdout.write(shownLines(values.json ? JSON.stringify(out.json) : out.text) + '\n');
    if (out.failure === undefined) return 0;
    process.stderr.write(`kasi: ${shownLines(out.failure)}\n`);
    return 1;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`kasi: ${shownLines(err.message)}\n\n${USAGE}`);
      return 2;
    }
    process.stderr.write(`kasi: ${shownLines(err instanceof Error ? err.message : String(err))}\n`);
    return 1;
  } finally {
    await db?.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`kasi: ${shownLines(err instanceof Error ? err.message : String(err))}\n\n${USAGE}`);
    process.exit(2);
  },
);
