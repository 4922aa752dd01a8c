// Create an invoice by hand (POST /v1/invoices): a draft for a customer, its lines the customer's
// pending invoice items not tied to a subscription (invoice items come with adjustments: until
// then a draft has none), made in the customer's time (a test clock's, if it lives on one).
import { newId } from '../../crypto/ids';
import type { CustomerRow } from '../../db/customers';
import { insertInvoice, type InvoiceRow } from '../../db/invoices';
import { recordEvent } from '../../db/events';
import { invoiceTotals, type CollectionMethod, type InvoiceLine } from '../../domain/invoices';
import { invoiceView } from '../../views/invoice';
import type { AccountScope, TransactionContext } from '../context';
import { findOwned } from '../owned';
import { billingNow } from '../test-clocks/billing-now';

export interface InvoiceInput {
  customerId: string;
  collectionMethod?: CollectionMethod;
  daysUntilDue?: number;
  memo?: string;
}

export const DEFAULT_DAYS_UNTIL_DUE = 30;

export async function createInvoice(ctx: TransactionContext, scope: AccountScope, input: InvoiceInput): Promise<InvoiceRow> {
  const customer = await findOwned<CustomerRow>(ctx.db, 'customers', input.customerId, scope, 'customer');
  const now = await billingNow(ctx, customer);
  const lines: InvoiceLine[] = [];
  const totals = invoiceTotals(lines);
  const collectionMethod = input.collectionMethod ?? 'send_invoice';
  const row: InvoiceRow = {
    id: newId('invoice', now.getTime()),
    account_id: scope.account.id,
    mode: scope.mode,
    customer_id: customer.id,
    subscription_id: null,
    number: null,
    status: 'draft',
    billing_reason: 'manual',
    period_start: null,
    period_end: null,
    lines,
    subtotal_cents: totals.subtotalCents,
    discount_cents: totals.discountCents,
    tax_cents: totals.taxCents,
    total_cents: totals.totalCents,
    credit_applied_cents: totals.creditAppliedCents,
    amount_due_cents: totals.amountDueCents,
    amount_paid_cents: 0,
    credit_notes_cents: 0,
    collection_method: collectionMethod,
    days_until_due: collectionMethod === 'send_invoice' ? (input.daysUntilDue ?? DEFAULT_DAYS_UNTIL_DUE) : null,
    due_date: null,
    memo: input.memo ?? null,
    attempt_count: 0,
    next_attempt_at: null,
    last_failure: null,
    finalized_at: null,
    paid_at: null,
    voided_at: null,
    marked_uncollectible_at: null,
    created_at: now,
  };
  await insertInvoice(ctx.db, row);
  await recordEvent(ctx.db, { accountId: scope.account.id, mode: scope.mode, type: 'invoice.created', data: invoiceView(row), now });
  return row;
}
