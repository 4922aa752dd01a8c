// The payment links list: one list of the newest 200 (the spec's Limits table), no pages.
import { newestPaymentLinks, type CountedPaymentLinkRow } from '../../db/payment-links';
import type { AccountScope, ServiceContext } from '../context';

export const PAYMENT_LINK_LIST_SIZE = 200;

export function listPaymentLinks(ctx: ServiceContext, scope: AccountScope): Promise<CountedPaymentLinkRow[]> {
  return newestPaymentLinks(ctx.db, { accountId: scope.account.id, mode: scope.mode }, PAYMENT_LINK_LIST_SIZE);
}
