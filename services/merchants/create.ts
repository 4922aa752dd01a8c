// Create a merchant: the account (not yet activated for live) on its plan (the default unless
// given), and one key of each kind and mode, shown this once. `kasi merchant create`.
import { createMerchant as insertMerchant, type MerchantKeys } from '../../db/merchants';
import type { AccountRecord } from '../../db/accounts';
import type { ServiceContext } from '../context';
import { checkMerchantFields } from './fields';

export async function createMerchant(ctx: ServiceContext, input: { name: string; plan?: string }): Promise<{ account: AccountRecord; keys: MerchantKeys }> {
  checkMerchantFields(ctx, input);
  return insertMerchant(ctx.db, { name: input.name.trim(), plan: input.plan, now: ctx.clock.now() });
}
