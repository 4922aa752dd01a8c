// Subscriptions whose trial ended without a card have one on file again once their customer has a
// default card (kept on an invoice's page or at any checkout of theirs), which renewals charge.
import { recordEvent } from '../../db/events';
import { clearCardMissing, itemsOf } from '../../db/subscriptions';
import { subscriptionView } from '../../views/subscription';
import type { TransactionContext } from '../context';

/** cardMissingSince cleared on the customer's subscriptions, each with customer.subscription.updated. */
export async function noteCardOnFile(ctx: TransactionContext, customerId: string, now: Date): Promise<void> {
  const cleared = await clearCardMissing(ctx.db, customerId);
  if (cleared.length === 0) return;
  const items = await itemsOf(ctx.db, cleared.map((s) => s.id));
  for (const subscription of cleared) {
    const data = subscriptionView(subscription, items.filter((i) => i.subscription_id === subscription.id));
    await recordEvent(ctx.db, { accountId: subscription.account_id, mode: subscription.mode, type: 'customer.subscription.updated', data, now });
  }
}
