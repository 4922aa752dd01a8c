// Delete a saved card (DELETE /v1/cards/{id}): retired (`active` false, `retiredAt` set the first
// time), then its token deleted at the processor, outside any transaction. Deleting again answers
// the same card and asks the processor again (harmless there), so a deletion the processor missed
// is completed by the retry.
import { retireSavedCard, type SavedCardRow } from '../../db/saved-cards';
import type { Processors } from '../../processor';
import type { ServiceContext } from '../context';

export async function deleteSavedCard(ctx: ServiceContext, processors: Processors, card: SavedCardRow): Promise<SavedCardRow> {
  const retired = await retireSavedCard(ctx.db, card.id, ctx.clock.now());
  if (retired.processor_token !== null) await (await processors.forAccount(retired.account_id, retired.mode))?.deleteCard(retired.processor_token);
  return retired;
}
