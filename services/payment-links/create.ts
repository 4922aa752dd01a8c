// Create a payment link: what it sells is checked as a checkout's purchase is (the same rules, in
// services/checkouts/create.ts), so every payer's checkout made from it is valid too.
import { newId } from '../../crypto/ids';
import type { LineItemInput } from '../../domain/checkout-rules';
import type { Locale } from '../../domain/locale';
import { insertPaymentLink, type CountedPaymentLinkRow } from '../../db/payment-links';
import { checkedPurchase } from '../checkouts/create';
import type { AccountScope, ServiceContext } from '../context';

export interface PaymentLinkInput {
  amountCents?: number;
  description?: string;
  lineItems?: LineItemInput[];
  locale?: Locale;
  reference?: string;
  successUrl?: string;
  saveCard?: boolean;
}

/** The link's page: `/pay/<id>`, with `/si` or `/ta` before `pay` for those locales (as a checkout's). */
export function paymentLinkPath(locale: Locale, id: string): string {
  return `${locale === 'en' ? '' : `/${locale}`}/pay/${id}`;
}

export async function createPaymentLink(ctx: ServiceContext, scope: AccountScope, input: PaymentLinkInput): Promise<CountedPaymentLinkRow> {
  const { amountCents, description } = checkedPurchase(scope, input);
  const now = ctx.clock.now();
  const id = newId('paymentLink', now.getTime());
  const locale = input.locale ?? 'en';
  const row = {
    id,
    account_id: scope.account.id,
    mode: scope.mode,
    active: true,
    amount_cents: amountCents,
    description,
    line_items: input.lineItems ?? null,
    locale,
    reference: input.reference ?? null,
    success_url: input.successUrl ?? null,
    save_card: input.saveCard ?? false,
    url: `${ctx.config.publicBaseUrl}${paymentLinkPath(locale, id)}`,
    created_at: now,
    deactivated_at: null,
  };
  await insertPaymentLink(ctx.db, row);
  return { ...row, payment_count: 0 };
}
