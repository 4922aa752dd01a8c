// Create an invoice item (POST /v1/invoice_items): a one-off line pending for a customer, or for one
// of their subscriptions (its next invoice takes it: a renewal, or an invoice its change makes
// now); without a subscription, the customer's next invoice of any kind takes it (a renewal, a
// first invoice, one made by hand). Made in the customer's time (a test clock's, if it lives on one).
import { newId } from '../../crypto/ids';
import type { CustomerRow } from '../../db/customers';
import { insertInvoiceItem, type InvoiceItemRow } from '../../db/invoice-items';
import type { SubscriptionRow } from '../../db/subscriptions';
import { ApiError } from '../../domain/errors';
import { subscriptionChangeRefusal } from '../../domain/subscription-rules';
import type { AccountScope, TransactionContext } from '../context';
import { findOwned } from '../owned';
import { billingNowForNew } from '../test-clocks/billing-now';

export interface InvoiceItemInput {
  customerId: string;
  subscriptionId?: string;
  description: string;
  unitAmountCents: number;
  quantity?: number;
  discountable?: boolean;
}

/**
 * 404 for no such customer (or subscription); 400 for a subscription of another customer; 409
 * subscription_ended for one that will bill no more.
 */
export async function createInvoiceItem(ctx: TransactionContext, scope: AccountScope, input: InvoiceItemInput): Promise<InvoiceItemRow> {
  const customer = await findOwned<CustomerRow>(ctx.db, 'customers', input.customerId, scope, 'customer');
  if (input.subscriptionId !== undefined) {
    const subscription = await findOwned<SubscriptionRow>(ctx.db, 'subscriptions', input.subscriptionId, scope, 'subscription');
    if (subscription.customer_id !== customer.id) {
      throw new ApiError('VALIDATION_FAILED', 'The body is not valid.', { fields: [{ path: 'subscriptionId', message: `The subscription ${subscription.id} is not the customer ${customer.id}'s.` }] });
    }
    const refusal = subscriptionChangeRefusal(subscription.id, subscription.status, 'update');
    if (refusal !== null) throw refusal;
  }
  const now = await billingNowForNew(ctx, customer);
  const quantity = input.quantity ?? 1;
  const row: InvoiceItemRow = {
    id: newId('invoiceItem', now.getTime()),
    account_id: scope.account.id,
    mode: scope.mode,
    customer_id: customer.id,
    subscription_id: input.subscriptionId ?? null,
    invoice_id: null,
    description: input.description,
    unit_amount_cents: input.unitAmountCents,
    quantity,
    amount_cents: input.unitAmountCents * quantity,
    discountable: input.discountable ?? true,
    created_at: now,
  };
  await insertInvoiceItem(ctx.db, row);
  return row;
}
