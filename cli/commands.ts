// One function per `kasi` command: each parses its arguments, calls a service (the same ones the
// API calls) and returns what --json prints and a line for people.
import { migrate, migrationStatus } from '../db/connection';
import { findAccount, type AccountChanges, type AccountRecord } from '../db/accounts';
import { DEFAULT_ANCHORS, type DefaultAnchor } from '../domain/billing-anchor';
import type { LadderEnd } from '../domain/dunning';
import { PRORATION_UNITS, type ProrationUnit } from '../domain/proration';
import { attemptsOf, latestAttemptsOfEndpoint } from '../db/webhook-deliveries';
import { findWebhookEndpoint, webhookEndpointsOfAccount, type WebhookEndpointRow } from '../db/webhook-endpoints';
import { KEY_KINDS, MODES, PERMISSIONS, type KeyKind, type Mode, type Permission } from '../domain/api-keys';
import { ApiError } from '../domain/errors';
import { PUBLIC_EVENT_TYPES } from '../domain/event-types';
import type { ServiceContext, ServiceDeps } from '../services/context';
import { inTransaction } from '../services/run';
import { createApiKey } from '../services/api-keys/create';
import { revokeApiKey } from '../services/api-keys/revoke';
import { createMerchant } from '../services/merchants/create';
import { updateMerchant } from '../services/merchants/update';
import { attemptWebhookDelivery } from '../services/webhook-deliveries/attempt';
import { createWebhookEndpoint } from '../services/webhook-endpoints/create';
import { pingWebhookEndpoint } from '../services/webhook-endpoints/ping';
import { rotateWebhookSecret } from '../services/webhook-endpoints/rotate-secret';
import { updateWebhookEndpoint } from '../services/webhook-endpoints/update';
import { accountView } from '../views/account';
import { apiKeyView } from '../views/api-key';
import { webhookEndpointView } from '../views/webhook-endpoint';
import { webhookAttemptView } from '../views/webhook-delivery';
import { shown } from './text';

export class UsageError extends Error {}

export interface CommandInput {
  /** What the services need: the database, the clock, the configuration, the log; no workflows. */
  deps: ServiceDeps;
  args: string[];
  options: Record<string, string | boolean | undefined>;
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

/**
 * How the CLI words a service's refusal of a field it was given: a bad value is bad usage (exit
 * 2); a URL that cannot receive webhooks is a check that failed (exit 1).
 */
const FIELD_REFUSALS: Record<string, (message: string, input: CommandInput) => Error> = {
  name: (message) => new UsageError(`--name ${message}`),
  plan: (message) => new UsageError(`--plan ${message}`),
  permissions: (message) => new UsageError(`--permissions ${message}`),
  expiresAt: (message) => new UsageError(`--expires ${message}`),
  url: (message, input) => new Error(`--url cannot receive ${option(input, 'mode')} webhooks: ${message}`),
};

/** Runs a service in a transaction of its own, its refusal of a field worded as the CLI's. */
async function call<T>(input: CommandInput, work: (ctx: ServiceContext) => Promise<T>): Promise<T> {
  try {
    return await inTransaction(input.deps, work);
  } catch (err) {
    const field = err instanceof ApiError ? err.fields?.[0] : undefined;
    const refusal = field && FIELD_REFUSALS[field.path];
    throw refusal ? refusal(field.message, input) : err;
  }
}

async function accountNamed(input: CommandInput, id = argument(input, 'accountId')): Promise<AccountRecord> {
  const account = await findAccount(input.deps.db, id);
  if (!account) throw new Error(`no account ${id}`);
  return account;
}

async function endpointNamed(input: CommandInput): Promise<WebhookEndpointRow> {
  const id = argument(input, 'endpointId');
  const endpoint = await findWebhookEndpoint(input.deps.db, id);
  if (!endpoint) throw new Error(`no webhook endpoint ${id}`);
  return endpoint;
}

async function changeAccount(input: CommandInput, changes: AccountChanges, verb: string): Promise<CommandOutput> {
  const account = await accountNamed(input);
  const view = accountView(await call(input, (ctx) => updateMerchant(ctx, account, changes)));
  return {
    json: view,
    text: `${verb} ${view.id} (${shown(view.name)}): status ${view.status}, plan ${view.plan}, saved cards ${view.savedCards ? 'on' : 'off'}, dunning ends ${view.dunningEnd}, proration by the ${view.proration}, billing cycle anchor ${view.billingCycleAnchor}, live payments ${view.livePaymentsOpen ? 'open' : 'closed'}`,
  };
}

async function setEndpointEnabled(input: CommandInput, enabled: boolean): Promise<CommandOutput> {
  const named = await endpointNamed(input);
  const endpoint = await call(input, (ctx) => updateWebhookEndpoint(ctx, named, { enabled }));
  return { json: webhookEndpointView(endpoint), text: `${endpoint.id} ${enabled ? 'enabled' : 'disabled'}: ${shown(endpoint.url)}` };
}

export const commands: Record<string, Command> = {
  async migrate(input) {
    if (input.args.length) throw new UsageError(`unexpected arguments: ${input.args.join(' ')}`);
    if (input.options.status === true) {
      const status = await migrationStatus(input.deps.db);
      const list = (names: string[]) => (names.length ? names.join(', ') : 'none');
      return { json: status, text: `applied: ${list(status.applied)}\npending: ${list(status.pending)}` };
    }
    const applied = await migrate(input.deps.db);
    return { json: { applied }, text: applied.length ? `applied: ${applied.join(', ')}` : 'the database is up to date' };
  },

  async 'merchant create'(input) {
    const name = option(input, 'name');
    if (name === undefined) throw new UsageError('--name is required');
    if (input.args.length) throw new UsageError(`unexpected arguments: ${input.args.join(' ')}`);
    const { account, keys } = await call(input, (ctx) => createMerchant(ctx, { name, plan: option(input, 'plan') }));
    const lines = Object.entries(keys).map(([k, v]) => `  ${k}: ${v}`);
    return {
      json: { accountId: account.id, keys },
      text: [`created ${account.id} (${shown(account.name)}); not yet activated for live. Keys (shown once):`, ...lines].join('\n'),
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
    changes.plan = option(input, 'plan');
    const dunningEnd = option(input, 'dunning-end');
    if (dunningEnd !== undefined) changes.dunningEnd = oneOf<LadderEnd>(dunningEnd, ['unpaid', 'canceled'], '--dunning-end');
    const proration = option(input, 'proration');
    if (proration !== undefined) changes.proration = oneOf<ProrationUnit>(proration, PRORATION_UNITS, '--proration');
    const anchor = option(input, 'billing-cycle-anchor');
    if (anchor !== undefined) changes.billingCycleAnchor = oneOf<DefaultAnchor>(anchor, DEFAULT_ANCHORS, '--billing-cycle-anchor');
    if (Object.values(changes).every((change) => change === undefined)) {
      throw new UsageError('nothing to set: give --saved-cards, --plan, --status, --dunning-end, --proration or --billing-cycle-anchor');
    }
    return changeAccount(input, changes, 'updated');
  },

  async 'key create'(input) {
    const accountId = argument(input, 'accountId');
    const kind = oneOf<KeyKind>(option(input, 'kind'), KEY_KINDS, '--kind');
    const mode = oneOf<Mode>(option(input, 'mode'), MODES, '--mode');
    const permissionList = option(input, 'permissions');
    const permissions = permissionList?.split(',').map((p) => oneOf<Permission>(p.trim(), PERMISSIONS, '--permissions'));
    const expires = option(input, 'expires');
    const expiresAt = expires === undefined ? null : new Date(expires);
    const account = await accountNamed(input, accountId);
    const { record, key } = await call(input, (ctx) => createApiKey(ctx, account, { kind, mode, permissions, expiresAt }));
    return { json: { id: record.id, key }, text: `created ${record.id} (${kind}, ${mode}); the key, shown once:\n  ${key}` };
  },

  async 'key revoke'(input) {
    const keyOrId = argument(input, 'key-or-id');
    const record = await call(input, (ctx) => revokeApiKey(ctx, keyOrId)).catch((err: unknown) => {
      throw err instanceof ApiError && err.code === 'NOT_FOUND' ? new Error(`no key ${keyOrId.startsWith('key_') ? keyOrId : 'matching that value'}`) : err;
    });
    return { json: apiKeyView(record), text: `revoked ${record.id} (${record.kind}, ${record.mode}, ${record.hint})` };
  },

  async 'webhook add'(input) {
    const accountId = argument(input, 'accountId');
    const mode = oneOf<Mode>(option(input, 'mode'), MODES, '--mode');
    const url = option(input, 'url');
    if (!url) throw new UsageError('--url is required');
    const eventTypes = option(input, 'events')?.split(',').map((t) => oneOf(t.trim(), PUBLIC_EVENT_TYPES, '--events'));
    const account = await accountNamed(input, accountId);
    const { endpoint, secret } = await call(input, (ctx) => createWebhookEndpoint(ctx, { account, mode }, { url, eventTypes }));
    return { json: { id: endpoint.id, secret }, text: `added ${endpoint.id} (${mode}) -> ${shown(url)}; signing secret, shown once:\n  ${secret}` };
  },

  async 'webhook rotate'(input) {
    const endpoint = await endpointNamed(input);
    const secret = await call(input, (ctx) => rotateWebhookSecret(ctx, endpoint));
    return { json: { id: endpoint.id, secret }, text: `new signing secret for ${endpoint.id} (the old one signs alongside for 24 h):\n  ${secret}` };
  },

  async 'webhook list'(input) {
    const account = await accountNamed(input);
    const list = (await webhookEndpointsOfAccount(input.deps.db, account.id)).map((r) => ({ id: r.id, url: r.url, mode: r.mode, enabled: r.enabled }));
    return { json: list, text: list.length ? list.map((e) => `${e.id}  ${e.mode}  ${e.enabled ? 'enabled ' : 'disabled'}  ${shown(e.url)}`).join('\n') : 'no webhook endpoints' };
  },

  async 'webhook attempts'(input) {
    const endpoint = await endpointNamed(input);
    const rows = await latestAttemptsOfEndpoint(input.deps.db, endpoint.id, 100);
    const list = rows.map((r) => ({ ...webhookAttemptView(r), eventType: r.event_type, eventId: r.event_id }));
    return {
      json: list,
      text: list.length
        ? list.map((a) => `${a.attemptedAt}  ${a.deliveryId} #${a.attemptNumber}  ${a.eventType}  ${a.statusCode ?? '-'}  ${a.latencyMs} ms${a.error ? `  ${shown(a.error)}` : ''}`).join('\n')
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
    const endpoint = await endpointNamed(input);
    // The CLI waits for the attempt to print it, so it makes the attempt itself.
    const delivery = await call(input, (ctx) => pingWebhookEndpoint(ctx, endpoint, 'caller'));
    const { delivered } = await attemptWebhookDelivery(input.deps, delivery.id, { manual: true });
    const [attempt] = await attemptsOf(input.deps.db, [delivery]);
    const view = { ...webhookAttemptView(attempt!), delivered };
    const text = `test.ping to ${shown(endpoint.url)}: ${delivered ? 'delivered' : 'failed'} (${view.statusCode ?? shown(view.error ?? '')}, ${view.latencyMs} ms)`;
    // The attempt is printed either way (it is the answer); a ping that failed exits 1.
    return { json: view, text, failure: delivered ? undefined : text };
  },
};
