// The saved cards list: one list of the newest 200 active cards (the spec's Limits table), of one
// customer email when asked; no pages.
import { SAVED_CARD_LIST_SIZE } from '../../domain/saved-cards';
import { newestSavedCards, type SavedCardRow } from '../../db/saved-cards';
import type { AccountScope, ServiceContext } from '../context';

export function listSavedCards(ctx: ServiceContext, scope: AccountScope, customerEmail?: string): Promise<SavedCardRow[]> {
  return newestSavedCards(ctx.db, { accountId: scope.account.id, mode: scope.mode }, customerEmail, SAVED_CARD_LIST_SIZE);
}
