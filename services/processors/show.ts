// An account's card processors (`kasi processor show`): each mode's, test showing the built-in
// sandbox when none is set, live nothing.
import { cardProcessorsOfAccount } from '../../db/processors';
import type { AccountRecord } from '../../db/accounts';
import { cardProcessorView, SANDBOX_VIEW } from '../../views/card-processor';
import type { ServiceContext } from '../context';

export async function showCardProcessors(ctx: Pick<ServiceContext, 'db'>, account: AccountRecord) {
  const rows = await cardProcessorsOfAccount(ctx.db, account.id);
  const views = rows.map(cardProcessorView);
  return rows.some((r) => r.mode === 'test') ? views : [SANDBOX_VIEW, ...views];
}
