// A subscription as the API shows it: its row with its items, their prices and products.
import type { Knex } from 'knex';
import { itemsOf, type SubscriptionRow } from '../../db/subscriptions';
import { subscriptionView } from '../../views/subscription';

export async function showSubscription(db: Knex | Knex.Transaction, row: SubscriptionRow): Promise<ReturnType<typeof subscriptionView>> {
  return subscriptionView(row, await itemsOf(db, [row.id]));
}
