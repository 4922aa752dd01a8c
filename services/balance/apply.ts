// The customer's credit balance at an invoice's finalisation (DESIGN.md "Invoice arithmetic"): a
// positive balance is used up to the invoice's total (`creditAppliedCents`, an
// `applied_to_invoice` transaction), and a total below zero goes onto the balance
// (`invoice_negative`; the invoice is then paid at 0). Decided under the customer's row lock, so
// two invoices finalised at once never use the same credit; asked only when the customer's balance
// as read with their time is positive, or the total is negative (a renewal storm's customers have
// none, and take no lock).
import { addBalanceTransaction, lockCreditBalance } from '../../db/balance-transactions';
import type { InvoiceRow } from '../../db/invoices';
import { amountDue, creditApplied } from '../../domain/invoice-arithmetic';
import { centsFromDb } from '../../domain/money';
import type { TransactionContext } from '../context';
import { balanceTransaction } from './adjust';

/** The invoice's changes once the balance is settled with it (none when nothing moved). */
export async function settleBalance(ctx: TransactionContext, invoice: InvoiceRow, balanceAsRead: number, now: Date): Promise<Pick<InvoiceRow, 'credit_applied_cents' | 'amount_due_cents'> | Record<string, never>> {
  const totalCents = centsFromDb(invoice.total_cents);
  const customer = { id: invoice.customer_id, account_id: invoice.account_id, mode: invoice.mode };
  const refs = { invoiceId: invoice.id };
  if (totalCents < 0) {
    await addBalanceTransaction(ctx.db, balanceTransaction(customer, 'invoice_negative', -totalCents, now, refs));
    return {};
  }
  if (balanceAsRead <= 0 || totalCents === 0) return {};
  const applied = creditApplied(await lockCreditBalance(ctx.db, invoice.customer_id), totalCents);
  if (applied === 0) return {};
  await addBalanceTransaction(ctx.db, balanceTransaction(customer, 'applied_to_invoice', -applied, now, refs));
  return { credit_applied_cents: applied, amount_due_cents: amountDue(totalCents, applied, centsFromDb(invoice.credit_notes_cents)) };
}

/**
 * A voided invoice's credit applied, given back to the customer's balance (an `applied_to_invoice`
 * transaction of the opposite sign, as Stripe writes it): the invoice will not be paid, so the
 * credit it used is theirs again. An open invoice's credit notes never gave any of it back (one
 * does only once nothing is due, which pays the invoice). The customer's row is locked after the
 * invoice's, as a credit note takes them.
 */
export async function returnAppliedCredit(ctx: TransactionContext, invoice: InvoiceRow, now: Date): Promise<void> {
  const applied = centsFromDb(invoice.credit_applied_cents);
  if (applied === 0) return;
  const customer = { id: invoice.customer_id, account_id: invoice.account_id, mode: invoice.mode };
  await addBalanceTransaction(ctx.db, balanceTransaction(customer, 'applied_to_invoice', applied, now, { invoiceId: invoice.id, description: `Invoice ${invoice.number} voided` }));
}
