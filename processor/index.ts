// Which processor takes an account's payments in a mode: the gateway profile an operator set with
// `kasi processor set` (the Mastercard Gateway adapter), else the built-in sandbox in test mode and
// none in live mode. The profile is read at each payment step (by primary key), so a
// change made from any process (the CLI) holds from the next step on; the adapter made from it is
// kept while the profile stays as it is.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { Clock } from '../domain/clock';
import { notificationPath } from '../domain/card-processor';
import { ApiError } from '../domain/errors';
import { cardProcessorsOf, findCardProcessor, openedProfile, type CardProcessorRow } from '../db/processors';
import { createMastercardGatewayProcessor, type MastercardGatewayProcessor } from './mastercard-gateway';
import type { CardProcessor } from './port';
import { createSandboxProcessor } from './sandbox';

export interface Processors {
  /** The account's processor in the mode, or null: live mode with none set. */
  forAccount(accountId: string, mode: Mode): Promise<CardProcessor | null>;
  /** forAccount, or the 501 that says how an operator sets one. */
  required(accountId: string, mode: Mode): Promise<CardProcessor>;
  /** The gateway adapter set for the account and mode (its notifications go to it), or null. */
  gateway(accountId: string, mode: Mode): Promise<MastercardGatewayProcessor | null>;
  /**
   * Items grouped by the processor of their account and mode (one look-up for them all), for asking
   * each processor once about many; items whose mode has none (live, not set) are left out.
   */
  grouped<T>(items: readonly T[], owner: (item: T) => { accountId: string; mode: Mode }): Promise<{ processor: CardProcessor; items: T[] }[]>;
}

/** Adapters kept at most (one per account and mode set to a gateway); the oldest made go first. */
const MAX_KEPT = 10_000;

function noProcessorError(accountId: string, mode: Mode): ApiError {
  return new ApiError(
    'NOT_SUPPORTED',
    `No card processor takes this account's ${mode} payments yet: an operator sets the bank's gateway with \`kasi processor set ${accountId} --mode ${mode} --gateway-url <url> --merchant-id <id> --api-password <pw>\`.`,
  );
}

export function createProcessors(deps: { db: Knex; clock: Clock; publicBaseUrl: () => string; secretKey: () => Buffer; sandboxSettlementMs?: number }): Processors {
  const sandbox = createSandboxProcessor(deps);
  const kept = new Map<string, { version: number; adapter: MastercardGatewayProcessor }>();
  const keyOf = (accountId: string, mode: Mode) => `${accountId}:${mode}`;
  /** The adapter of a profile as read now: the one kept while the profile is unchanged. */
  const adapterOf = (row: CardProcessorRow): MastercardGatewayProcessor => {
    const key = keyOf(row.account_id, row.mode);
    const version = row.updated_at.getTime();
    const hit = kept.get(key);
    if (hit?.version === version) return hit.adapter;
    const notificationUrl = () => `${deps.publicBaseUrl()}${notificationPath(row.account_id, row.mode)}`;
    const adapter = createMastercardGatewayProcessor({ ...openedProfile(row, deps.secretKey()), clock: deps.clock, notificationUrl });
    kept.delete(key);
    if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value as string);
    kept.set(key, { version, adapter });
    return adapter;
  };
  const gateway = async (accountId: string, mode: Mode): Promise<MastercardGatewayProcessor | null> => {
    const row = await findCardProcessor(deps.db, accountId, mode);
    return row === undefined ? null : adapterOf(row);
  };
  const orSandbox = (mode: Mode, adapter: MastercardGatewayProcessor | null): CardProcessor | null => adapter ?? (mode === 'test' ? sandbox : null);
  const forAccount = async (accountId: string, mode: Mode) => orSandbox(mode, await gateway(accountId, mode));
  return {
    forAccount,
    gateway,
    async grouped(items, owner) {
      const groups = new Map<string, { accountId: string; mode: Mode; items: (typeof items)[number][] }>();
      for (const item of items) {
        const { accountId, mode } = owner(item);
        const group = groups.get(keyOf(accountId, mode)) ?? { accountId, mode, items: [] };
        group.items.push(item);
        groups.set(keyOf(accountId, mode), group);
      }
      const rows = new Map((await cardProcessorsOf(deps.db, [...groups.values()])).map((row) => [keyOf(row.account_id, row.mode), row]));
      return [...groups].flatMap(([key, group]) => {
        const row = rows.get(key);
        const processor = orSandbox(group.mode, row === undefined ? null : adapterOf(row));
        return processor === null ? [] : [{ processor, items: group.items }];
      });
    },
    async required(accountId, mode) {
      const processor = await forAccount(accountId, mode);
      if (processor === null) throw noProcessorError(accountId, mode);
      return processor;
    },
  };
}
