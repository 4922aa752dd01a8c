// A payer presses the button on a payment link's page: a checkout and payment of their own
// (`paymentLinkId` set), made by the checkout service in its one-statement write, which applies
// the monthly limit. No Idempotency-Key: each press is a new checkout, and one left unpaid simply
// expires after 30 minutes.
import { accountRefusal } from '../../domain/account-rules';
import { ApiError } from '../../domain/errors';
import type { Locale } from '../../domain/locale';
import { centsFromDb } from '../../domain/money';
import { findAccount, type AccountRecord } from '../../db/accounts';
import { findPaymentLink, type PaymentLinkRow } from '../../db/payment-links';
import { createCheckout, type CheckoutInput, type CreatedCheckout } from '../checkouts/create';
import type { ServiceDeps } from '../context';
import { runEffects, serviceContext, type Effect } from '../run';

/**
 * The payer's checkout of what the link sells, in the language of the page they pressed it on. It
 * offers to keep the card only while the account may (a live account whose saved cards were
 * switched off after the link was made still takes payments, without the offer).
 */
function checkoutInput(link: PaymentLinkRow, account: AccountRecord, locale: Locale): CheckoutInput {
  return {
    ...(link.line_items === null ? { amountCents: centsFromDb(link.amount_cents) } : { lineItems: link.line_items }),
    description: link.description,
    locale,
    ...(link.reference === null ? {} : { reference: link.reference }),
    ...(link.success_url === null ? {} : { successUrl: link.success_url }),
    saveCard: link.save_card && (link.mode === 'test' || account.savedCards),
  };
}

/**
 * Refuses with `link_inactive` (turned off), the account's refusal (`merchant_unavailable`,
 * `merchant_not_live`) or `monthly_limit_reached`; NOT_FOUND for no such link.
 */
export async function openPayerCheckout(deps: ServiceDeps, linkId: string, locale: Locale): Promise<CreatedCheckout> {
  const link = await findPaymentLink(deps.db, linkId);
  if (!link) throw new ApiError('NOT_FOUND', `No payment link ${linkId}.`);
  if (!link.active) throw new ApiError('link_inactive', 'This payment link is turned off.');
  const account = (await findAccount(deps.db, link.account_id)) as AccountRecord;
  const refusal = accountRefusal(account, link.mode);
  if (refusal !== null) throw refusal;
  const effects: Effect[] = [];
  const created = await createCheckout(serviceContext(deps, deps.db, effects), { account, mode: link.mode }, checkoutInput(link, account, locale), null, { paymentLinkId: link.id });
  await runEffects(effects, deps.log);
  return created;
}
