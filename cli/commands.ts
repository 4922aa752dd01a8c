// One function per `kasi` command: each returns what --json prints and a line for people.
import type { Knex } from 'knex';
import type { Config } from '../config';
import { KEY_KINDS, MODES, PERMISSIONS, type KeyKind, type Mode, type Permission } from '../domain/api-keys';
import { accountView, findAccount, updateAccount, type AccountChanges } from '../db/accounts';
import { apiKeyView, createApiKey, revokeApiKey } from '../db/api-keys';
import { migrate, migrationStatus } from '../db/connection';
import { accountNameProblem } from '../domain/account-rules';
import { createMerchant } from '../db/merchants';
import { PUBLIC_EVENT_TYPES } from '../domain/event-types';
import { createWebhookEndpoint, rotateWebhookSecret, updateWebhookEndpoint, webhookEndpointView, type WebhookEndpointRow } from '../db/webhook-endpoints';
import { createPingDelivery, webhookAttemptView, type WebhookAttemptRow } from '../db/webhook-deliveries';
import { destinationProblem } from '../net/webhook-http';
import { createWebhookActivities } from '../activities/webhook-delivery';
import { systemClock } from '../domain/clock';
import pino from 'pino';

export class UsageError extends Error {}

export interface CommandInput {
  db: Knex;
  config: Config;
  args: string[];
  options: Record<string, string | boolean | undefined>;
  now: Date;
}

export interface CommandOutput {
  json: unknown;
  text: string;
  /** Set when the command ran but what it tried failed: printed to stderr, exit code 1. */
  failure?: string;
}

type Command = (input: CommandInput) => Promise<CommandOutput>;

function option(input: CommandInput, name: string): string | undefined {
  const value = input.options[name];
  return typeof value === 'string' ? value : undefined;
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T {
  if (value === undefined || !allowed.includes(value as T)) throw new UsageError(`${flag} must be one of: ${allowed.join(', ')}`);
  return value as T;
}

function argument(input: CommandInput, what: string): string {
  const [value, ...rest] = input.args;
  if (!value) throw new UsageError(`missing <${what}>`);
  if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  return value;
}

function planOption(input: CommandInput): string | undefined {
  const plan = option(input, 'plan');
  if (plan !== undefined && !(plan in input.config.plans)) {
    throw new UsageError(`--plan must be one of: ${Object.keys(input.config.plans).join(', ')}`);
  }
  return plan;
}

function accountOutput(account: NonNullable<Awaited<ReturnType<typeof findAccount>>>, verb: string): CommandOutput {
  const view = accountView(account);
  return {
    json: view,
    text: `${verb} ${view.id} (${view.name}): status ${view.status}, plan ${view.plan}, saved cards ${view.savedCards ? 'on' : 'off'}, live payments ${view.livePaymentsOpen ? 'open' : 'closed'}`,
  };
}

async function changeAccount(input: CommandInput, changes: AccountChanges, verb: string): Promise<CommandOutput> {
  const id = argument(input, 'accountId');
  const account = await updateAccount(input.db, id, changes, input.now);
  if (!account) throw new Error(`no account ${id}`);
  return accountOutput(account, verb);
}

async function findEndpoint(input: CommandInput): Promise<WebhookEndpointRow> {
  const id = argument(input, 'endpointId');
  const endpoint = (await input.db('webhook_endpoints').where({ id }).first()) as WebhookEndpointRow | undefined;
  if (!endpoint) throw new Error(`no webhook endpoint ${id}`);
  return endpoint;
}

async function setEndpointEnabled(input: CommandInput, enabled: boolean): Promise<CommandOutput> {
  const endpoint = await updateWebhookEndpoint(input.db, (await findEndpoint(input)).id, { enabled }, input.now);
  return { json: webhookEndpointView(endpoint), text: `${endpoint.id} ${enabled ? 'enabled' : 'disabled'}: ${endpoint.url}` };
}

export const commands: Record<string, Command> = {
  async migrate(input) {
    if (input.args.length) throw new UsageError(`unexpected arguments: ${input.args.join(' ')}`);
    if (input.options.status === true) {
      const status = await migrationStatus(input.db);
      const list = (names: string[]) => (names.length ? names.join(', ') : 'none');
      return { json: status, text: `applied: ${list(status.applied)}\npending: ${list(status.pending)}` };
    }
    const applied = await migrate(input.db);
    return { json: { applied }, text: applied.length ? `applied: ${applied.join(', ')}` : 'the database is up to date' };
  },

  async 'merchant create'(input) {
    const name = option(input, 'name');
    if (name === undefined) throw new UsageError('--name is required');
    const nameProblem = accountNameProblem(name);
    if (nameProblem) throw new UsageError(`--name ${nameProblem}`);
    if (input.args.length) throw new UsageError(`unexpected arguments: ${input.args.join(' ')}`);
    const { account, keys } = await createMerchant(input.db, { name: name.trim(), plan: planOption(input), now: input.now });
    const lines = Object.entries(keys).map(([k, v]) => `  ${k}: ${v}`);
    return {
      json: { accountId: account.id, keys },
      text: [`created ${account.id} (${account.name}); not yet activated for live. Keys (shown once):`, ...lines].join('\n'),
    };
  },

  async 'merchant activate'(input) {
    return changeAccount(input, { status: 'active' }, 'activated');
  },

  async 'merchant set'(input) {
    const changes: AccountChanges = {};
    const savedCards = option(input, 'saved-cards');
    if (savedCards !== undefined) changes.savedCards = oneOf(savedCards, ['on', 'off'], '--saved-cards') === 'on';
    const status = option(input, 'status');
    if (status !== undefined) changes.status = oneOf<'active' | 'suspended'>(status, ['active', 'suspended'], '--status');
    changes.plan = planOption(input);
    if (changes.savedCards === undefined && changes.status === undefined && changes.plan === undefined) {
      throw new UsageError('nothing to set: give --saved-cards, --plan or --status');
    }
    return changeAccount(input, changes, 'updated');
  },

  async 'key create'(input) {
    const accountId = argument(input, 'accountId');
    const kind = oneOf<KeyKind>(option(input, 'kind'), KEY_KINDS, '--kind');
    const mode = oneOf<Mode>(option(input, 'mode'), MODES, '--mode');
    const permissionList = option(input, 'permissions');
    const permissions = permissionList?.split(',').map((p) => oneOf<Permission>(p.trim(), PERMISSIONS, '--permissions'));
    if (permissions && permissions.length === 0) throw new UsageError('--permissions needs at least one permission');
    const expires = option(input, 'expires');
    let expiresAt: Date | null = null;
    if (expires !== undefined) {
      if (kind !== 'agent') throw new UsageError('--expires is for agent keys');
      expiresAt = new Date(expires);
      if (Number.isNaN(expiresAt.getTime()) || expiresAt <= input.now) throw new UsageError('--expires must be an ISO time in the future');
    }
    if (!(await findAccount(input.db, accountId))) throw new Error(`no account ${accountId}`);
    const { record, key } = await createApiKey(input.db, { accountId, kind, mode, permissions, expiresAt, now: input.now });
    return { json: { id: record.id, key }, text: `created ${record.id} (${kind}, ${mode}); the key, shown once:\n  ${key}` };
  },

  async 'webhook add'(input) {
    const accountId = argument(input, 'accountId');
    const mode = oneOf<Mode>(option(input, 'mode'), MODES, '--mode');
    const url = option(input, 'url');
    if (!url) throw new UsageError('--url is required');
    const events = option(input, 'events')?.split(',').map((t) => oneOf(t.trim(), PUBLIC_EVENT_TYPES, '--events'));
    const problem = await destinationProblem(url, { mode, allowLoopback: input.config.webhookAllowLoopback });
    if (problem) throw new Error(`--url cannot receive ${mode} webhooks: ${problem}`);
    if (!(await findAccount(input.db, accountId))) throw new Error(`no account ${accountId}`);
    const { endpoint, secret } = await createWebhookEndpoint(input.db, { accountId, mode, url, eventTypes: events ?? null, key: input.config.secretKey(), now: input.now });
    return { json: { id: endpoint.id, secret }, text: `added ${endpoint.id} (${mode}) -> ${url}; signing secret, shown once:\n  ${secret}` };
  },

  async 'webhook rotate'(input) {
    const endpoint = await findEndpoint(input);
    const secret = await input.db.transaction((trx) => rotateWebhookSecret(trx, endpoint.id, input.config.secretKey(), input.now));
    return { json: { id: endpoint.id, secret }, text: `new signing secret for ${endpoint.id} (the old one signs alongside for 24 h):\n  ${secret}` };
  },

  async 'webhook list'(input) {
    const accountId = argument(input, 'accountId');
    if (!(await findAccount(input.db, accountId))) throw new Error(`no account ${accountId}`);
    const rows = (await input.db('webhook_endpoints').where({ account_id: accountId }).orderBy('id', 'desc')) as WebhookEndpointRow[];
    const list = rows.map((r) => ({ id: r.id, url: r.url, mode: r.mode, enabled: r.enabled }));
    return { json: list, text: list.length ? list.map((e) => `${e.id}  ${e.mode}  ${e.enabled ? 'enabled ' : 'disabled'}  ${e.url}`).join('\n') : 'no webhook endpoints' };
  },

  async 'webhook attempts'(input) {
    const endpoint = await findEndpoint(input);
    const rows = (await input.db('webhook_attempts as a')
      .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
      .where('d.endpoint_id', endpoint.id)
      .orderBy([{ column: 'a.attempted_at', order: 'desc' }, { column: 'a.id', order: 'desc' }])
      .limit(100)
      .select('a.*', 'd.event_type', 'd.event_id')) as (WebhookAttemptRow & { event_type: string; event_id: string | null })[];
    const list = rows.map((r) => ({ ...webhookAttemptView(r), eventType: r.event_type, eventId: r.event_id }));
    return {
      json: list,
      text: list.length
        ? list.map((a) => `${a.attemptedAt}  ${a.deliveryId} #${a.attemptNumber}  ${a.eventType}  ${a.statusCode ?? '-'}  ${a.latencyMs} ms${a.error ? `  ${a.error}` : ''}`).join('\n')
        : 'no attempts yet',
    };
  },

  async 'webhook enable'(input) {
    return setEndpointEnabled(input, true);
  },

  async 'webhook disable'(input) {
    return setEndpointEnabled(input, false);
  },

  async 'webhook ping'(input) {
    const endpoint = await findEndpoint(input);
    const delivery = await createPingDelivery(input.db, endpoint, input.now);
    const activities = createWebhookActivities({
      db: input.db,
      clock: systemClock,
      config: input.config,
      log: pino({ level: 'silent' }),
      orchestration: () => {
        throw new Error('a ping needs no workflow');
      },
    });
    const { delivered } = await activities.attemptWebhookDelivery(delivery.id, { manual: true });
    const attempt = (await input.db('webhook_attempts').where({ delivery_id: delivery.id }).first()) as WebhookAttemptRow;
    const view = { ...webhookAttemptView(attempt), delivered };
    const text = `test.ping to ${endpoint.url}: ${delivered ? 'delivered' : 'failed'} (${attempt.status_code ?? attempt.error}, ${attempt.latency_ms} ms)`;
    // The attempt is printed either way (it is the answer); a ping that failed exits 1.
    return { json: view, text, failure: delivered ? undefined : text };
  },

  async 'key revoke'(input) {
    const keyOrId = argument(input, 'key-or-id');
    const record = await revokeApiKey(input.db, keyOrId, input.now);
    if (!record) throw new Error(`no key ${keyOrId.startsWith('key_') ? keyOrId : 'matching that value'}`);
    return { json: apiKeyView(record), text: `revoked ${record.id} (${record.kind}, ${record.mode}, ${record.hint})` };
  },
};
