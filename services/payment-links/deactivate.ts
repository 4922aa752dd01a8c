// Turn a payment link off: its page answers `link_inactive` from then on. Checkouts its payers
// already have stay payable until they expire. Turning it off again changes nothing.
import { markPaymentLinkInactive, type CountedPaymentLinkRow, type PaymentLinkRow } from '../../db/payment-links';
import type { ServiceContext } from '../context';

export function deactivatePaymentLink(ctx: ServiceContext, link: PaymentLinkRow): Promise<CountedPaymentLinkRow> {
  return markPaymentLinkInactive(ctx.db, link.id, ctx.clock.now());
}
