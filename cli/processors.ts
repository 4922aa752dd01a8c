// `kasi processor set|show`: where an account's card payments go in each mode (DESIGN.md's fixed
// shapes). The API password and notification secret are taken, sealed and never printed.
import { findAccount } from '../db/accounts';
import { MODES, type Mode } from '../domain/api-keys';
import { ApiError } from '../domain/errors';
import { setCardProcessor } from '../services/processors/set';
import { showCardProcessors } from '../services/processors/show';
import { inTransaction } from '../services/run';
import { cardProcessorView } from '../views/card-processor';
import { UsageError, type CommandInput, type CommandOutput } from './commands';
import { shown } from './text';

/** The CLI's flag for each field the service checks. */
const FLAGS: Record<string, string> = { gatewayUrl: '--gateway-url', merchantId: '--merchant-id', apiPassword: '--api-password', notificationSecret: '--notification-secret' };

function text(input: CommandInput, flag: string): string | undefined {
  const value = input.options[flag];
  if (value === true) throw new UsageError(`--${flag} takes a value`);
  return value === false ? undefined : value;
}

async function namedAccount(input: CommandInput) {
  const [id, ...rest] = input.args;
  if (!id) throw new UsageError('missing <accountId>');
  if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  const account = await findAccount(input.deps.db, id);
  if (!account) throw new Error(`no account ${id}`);
  return account;
}

export const processorCommands: Record<string, (input: CommandInput) => Promise<CommandOutput>> = {
  async 'processor set'(input) {
    const account = await namedAccount(input);
    const mode = text(input, 'mode');
    if (mode === undefined || !MODES.includes(mode as Mode)) throw new UsageError(`--mode must be one of: ${MODES.join(', ')}`);
    const required = (flag: string) => {
      const value = text(input, flag);
      if (value === undefined) throw new UsageError(`--${flag} is required`);
      return value;
    };
    const fields = { gatewayUrl: required('gateway-url'), merchantId: required('merchant-id'), apiPassword: required('api-password'), notificationSecret: text(input, 'notification-secret') ?? null };
    const row = await inTransaction(input.deps, (ctx) => setCardProcessor(ctx, { account, mode: mode as Mode }, fields)).catch((err: unknown) => {
      const field = err instanceof ApiError ? err.fields?.[0] : undefined;
      throw field === undefined ? err : new UsageError(`${FLAGS[field.path]} ${field.message}`);
    });
    const view = cardProcessorView(row);
    return {
      json: { accountId: account.id, ...view },
      text: `${account.id} (${shown(account.name)}) takes ${view.mode} card payments through the Mastercard Gateway at ${shown(view.gatewayUrl)}, merchant ${shown(view.merchantId)}`,
    };
  },

  async 'processor show'(input) {
    const account = await namedAccount(input);
    const list = await showCardProcessors(input.deps, account);
    const line = (p: (typeof list)[number]) => ('gatewayUrl' in p ? `${p.mode}  ${p.processor}  ${shown(p.gatewayUrl)}  merchant ${shown(p.merchantId)}` : `${p.mode}  ${p.processor}`);
    const live = list.some((p) => p.mode === 'live') ? '' : '\nlive  none (live payments answer 501 until `kasi processor set --mode live` sets one)';
    return { json: list, text: list.map(line).join('\n') + live };
  },
};
