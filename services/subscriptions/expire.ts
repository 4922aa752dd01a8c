// An incomplete subscription whose first invoice is still unpaid 23 hours after it was made (a
// step of its workflow, at that instant in the customer's time) expires: `incomplete_expired`,
// final, its invoice voided, customer.subscription.updated.
import { recordEvent } from '../../db/events';
import { updateSubscription, type SubscriptionRow } from '../../db/subscriptions';
import type { TransactionContext } from '../context';
import { voidOpenInvoices } from './end';
import { showSubscription } from './show';

export async function expireIncomplete(ctx: TransactionContext, subscription: SubscriptionRow, at: Date): Promise<SubscriptionRow> {
  await voidOpenInvoices(ctx, subscription.id);
  const expired = await updateSubscription(ctx.db, subscription.id, { status: 'incomplete_expired', ended_at: at, checkout_url: null });
  await recordEvent(ctx.db, { accountId: expired.account_id, mode: expired.mode, type: 'customer.subscription.updated', data: await showSubscription(ctx.db, expired), now: at });
  return expired;
}
