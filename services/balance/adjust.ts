// A change of a customer's credit balance by hand (POST /v1/customers/{id}/balance_transactions):
// an `adjustment`, positive to add credit, negative to take it away, in the customer's time. The
// balance may go below zero (the customer owes it); only a positive balance is used by invoices.
import { newId } from '../../crypto/ids';
import { addBalanceTransaction, type BalanceTransactionRow, type NewBalanceTransaction } from '../../db/balance-transactions';
import type { CustomerRow } from '../../db/customers';
import type { TransactionContext } from '../context';
import { billingNowForNew } from '../test-clocks/billing-now';

export async function adjustBalance(ctx: TransactionContext, customer: CustomerRow, input: { amountCents: number; description?: string }): Promise<BalanceTransactionRow> {
  const now = await billingNowForNew(ctx, customer);
  return addBalanceTransaction(ctx.db, balanceTransaction(customer, 'adjustment', input.amountCents, now, { description: input.description ?? null }));
}

/** A new transaction of the customer's (its id made at `now`). */
export function balanceTransaction(
  customer: Pick<CustomerRow, 'id' | 'account_id' | 'mode'>,
  type: NewBalanceTransaction['type'],
  amountCents: number,
  now: Date,
  refs: { invoiceId?: string; creditNoteId?: string; description?: string | null } = {},
): NewBalanceTransaction {
  return {
    id: newId('balanceTransaction', now.getTime()),
    account_id: customer.account_id,
    mode: customer.mode,
    customer_id: customer.id,
    type,
    amount_cents: amountCents,
    invoice_id: refs.invoiceId ?? null,
    credit_note_id: refs.creditNoteId ?? null,
    description: refs.description ?? null,
    created_at: now,
  };
}
