// One function per `kasi` command: each returns what --json prints and a line for people.
import type { Knex } from 'knex';
import type { Config } from '../config';
import { KEY_KINDS, MODES, PERMISSIONS, type KeyKind, type Mode, type Permission } from '../domain/api-keys';
import { accountView, findAccount, updateAccount, type AccountChanges } from '../db/accounts';
import { apiKeyView, createApiKey, revokeApiKey } from '../db/api-keys';
import { migrate } from '../db/connection';
import { createMerchant } from '../db/merchants';

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

export const commands: Record<string, Command> = {
  async migrate(input) {
    const applied = await migrate(input.db);
    return { json: { applied }, text: applied.length ? `applied: ${applied.join(', ')}` : 'the database is up to date' };
  },

  async 'merchant create'(input) {
    const name = option(input, 'name');
    if (!name?.trim()) throw new UsageError('--name is required');
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

  async 'key revoke'(input) {
    const keyOrId = argument(input, 'key-or-id');
    const record = await revokeApiKey(input.db, keyOrId, input.now);
    if (!record) throw new Error(`no key ${keyOrId.startsWith('key_') ? keyOrId : 'matching that value'}`);
    return { json: apiKeyView(record), text: `revoked ${record.id} (${record.kind}, ${record.mode}, ${record.hint})` };
  },
};
