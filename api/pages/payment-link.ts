// The hosted payment link page at {checkout_url}/pay/<id> (and /si/..., /ta/...): the merchant,
// what is sold and the amount, and a button that makes the payer a checkout of their own and sends
// them to it (the button's handling is checkout-button.ts's, shared with the invoice's page). A
// turned-off link answers 409 `link_inactive`. Server-rendered: no JavaScript.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { accountRefusal } from '../../domain/account-rules';
import { orderFromLineItems } from '../../domain/checkout-rules';
import { ApiError } from '../../domain/errors';
import { idPattern } from '../../domain/ids';
import type { Locale } from '../../domain/locale';
import { centsFromDb, formatRupees } from '../../domain/money';
import { findAccount, type AccountRecord } from '../../db/accounts';
import { findPaymentLink, type PaymentLinkRow } from '../../db/payment-links';
import type { ServiceDeps } from '../../services/context';
import { paymentLinkPath } from '../../services/payment-links/create';
import { openPayerCheckout } from '../../services/payment-links/open-checkout';
import { escapeHtml } from '../../web/html';
import { checkoutButtonRouter, type CheckoutButtonDeps } from './checkout-button';
import { hostedPage, orderSummary } from './hosted-page';
import { say } from './messages';

export type PaymentLinkPagesDeps = ServiceDeps & CheckoutButtonDeps;

const ID = new RegExp(idPattern('paymentLink'));

interface View {
  link: PaymentLinkRow;
  merchant: string;
  /** Why the account takes no payment now (suspended), as the API's writes refuse it too; or null. */
  refusal: ApiError | null;
}

export function paymentLinkPagesRouter(deps: PaymentLinkPagesDeps): Router {
  const { db } = deps;

  const load = async (id: string): Promise<View | undefined> => {
    if (!ID.test(id)) return undefined;
    const link = await findPaymentLink(db, id);
    if (!link) return undefined;
    const account = (await findAccount(db, link.account_id)) as AccountRecord;
    return { link, merchant: account.name, refusal: accountRefusal(account, link.mode) };
  };

  const answers = hostedPage<View>(paymentLinkPath, (view) => ({ id: view.link.id, mode: view.link.mode, merchant: view.merchant }));

  /** A turned-off link, as a page in the payer's language. */
  const ownRefusal = (ctx: Context, locale: Locale, view: View, refusal: ApiError): boolean => {
    if (refusal.reason !== 'link_inactive') return false;
    answers.message(ctx, locale, view, 409, 'linkInactiveTitle', 'linkInactiveText', 'link_inactive');
    return true;
  };

  /** Turned off, or the account refuses payments: no checkout can be made. */
  const usable = (view: View): ApiError | null =>
    view.link.active ? view.refusal : new ApiError('link_inactive', 'This payment link is turned off.');

  const content = (locale: Locale, view: View) => {
    const { link, merchant } = view;
    const amount = formatRupees(centsFromDb(link.amount_cents));
    const purchase = { ...link, order: link.line_items === null ? null : orderFromLineItems(link.line_items) };
    return {
      title: say(locale, 'pageTitle', { merchant }),
      top: `<h1>${escapeHtml(say(locale, 'payTo', { merchant }))}</h1>
<p><strong>${escapeHtml(amount)}</strong></p>`,
      summary: orderSummary(locale, purchase),
    };
  };

  return checkoutButtonRouter<View>(deps, {
    path: paymentLinkPath,
    answers,
    load,
    notFoundTitle: 'linkNotFoundTitle',
    idOf: (view) => view.link.id,
    refusal: usable,
    ownRefusal,
    content,
    button: 'linkContinue',
    // The link's checkout knows no payer: it asks for their details.
    hint: () => 'linkHint',
    openCheckout: (view, locale) => openPayerCheckout(deps, view.link.id, locale),
  });
}
