// card.expiring, sent by the month's sweep (workflows/card-expiring.ts) on the 1st at 09:00, Sri
// Lankan time: for every active card whose expiry month is the next month and that was kept before
// the sweep, once per card (its `expiring_notified_at` is set in the event's transaction, and the
// sweep reads only cards without it). Cards are taken in batches, each one transaction. Safe to run
// again: a repeated sweep finds nothing left to send.
import { expiringMonthOf } from '../../domain/saved-cards';
import { recordEvent } from '../../db/events';
import { lockExpiringCards, markExpiringNotified } from '../../db/saved-cards';
import { savedCardView } from '../../views/saved-card';
import type { ServiceDeps } from '../context';
import { inTransaction } from '../run';

const BATCH = 500;

/** Sends the sweep's card.expiring events; how many were sent. */
export async function sendExpiringNotices(deps: ServiceDeps, sweepAt: Date): Promise<number> {
  const expiry = expiringMonthOf(sweepAt);
  let sent = 0;
  for (;;) {
    const batch = await inTransaction(deps, async ({ db: trx, clock }) => {
      const cards = await lockExpiringCards(trx, expiry, sweepAt, BATCH);
      const now = clock.now();
      for (const card of cards) await recordEvent(trx, { accountId: card.account_id, mode: card.mode, type: 'card.expiring', data: savedCardView(card), now });
      await markExpiringNotified(trx, cards.map((c) => c.id), now);
      return cards.length;
    });
    sent += batch;
    if (batch < BATCH) break;
  }
  if (sent > 0) deps.log.info({ sweepAt: sweepAt.toISOString(), sent }, 'card.expiring sent');
  return sent;
}
