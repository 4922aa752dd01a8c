// Create an invoice by hand (POST /v1/invoices): a draft for a customer, its lines the customer's
// pending invoice items not tied to a subscription (taken once: two made at once never both take
// one, db/invoice-items.ts) and the amounts carried over that wait for the customer's next invoice
// (services/invoices/carry-over.ts), made in the customer's time (a test clock's, if it lives on one);
// `couponId` discounts it (applied and counted now).
import { newId } from '../../crypto/ids';
import type { CustomerRow } from '../../db/customers';
import type { InvoiceRow } from '../../db/invoices';
import type { CollectionMethod } from '../../domain/invoices';
import type { AccountScope, TransactionContext } from '../context';
import { findOwned } from '../owned';
import { billingNowForNew } from '../test-clocks/billing-now';
import { takeInvoiceItemLines } from '../invoice-items/lines';
import { takeCarriedLines } from './carry-over';
import { writeDraftInvoice } from './draft';
import { applyCoupon } from '../coupons/redeem';
import { couponTerms } from '../../views/coupon';

export interface InvoiceInput {
  customerId: string;
  collectionMethod?: CollectionMethod;
  daysUntilDue?: number;
  memo?: string;
  couponId?: string;
}

export const DEFAULT_DAYS_UNTIL_DUE = 30;

export async function createInvoice(ctx: TransactionContext, scope: AccountScope, input: InvoiceInput): Promise<InvoiceRow> {
  const customer = await findOwned<CustomerRow>(ctx.db, 'customers', input.customerId, scope, 'customer');
  const now = await billingNowForNew(ctx, customer);
  const collectionMethod = input.collectionMethod ?? 'send_invoice';
  const id = newId('invoice', now.getTime());
  const coupon = input.couponId === undefined ? null : couponTerms(await applyCoupon(ctx, { accountId: scope.account.id, mode: scope.mode }, input.couponId));
  return writeDraftInvoice(ctx, {
    id,
    account_id: scope.account.id,
    mode: scope.mode,
    customer_id: customer.id,
    subscription_id: null,
    billing_reason: 'manual',
    period_start: null,
    period_end: null,
    lines: [...(await takeInvoiceItemLines(ctx, customer.id, null, id)), ...(await takeCarriedLines(ctx, customer.id, id))],
    collection_method: collectionMethod,
    days_until_due: collectionMethod === 'send_invoice' ? (input.daysUntilDue ?? DEFAULT_DAYS_UNTIL_DUE) : null,
    memo: input.memo ?? null,
    created_at: now,
  }, { coupon });
}
