// Issue a credit note (POST /v1/credit_notes; DESIGN.md's fine print on credit notes), under the
// invoice's lock, so credit notes issued at once never come to more than its total in all:
// - on an open invoice it lowers `amountDueCents`; an amount due that reaches 0 pays the invoice,
//   one left at 1 to 999 cents is paid by carrying it onto the customer's next invoice (as at
//   finalisation); what it gives beyond the amount due (credit the customer had applied to it
//   already) goes back to their balance. While a charge of the invoice is with the processor (or
//   has succeeded and is not yet applied) it is refused (409 invoice_payment_pending, as a void
//   is): that charge is for the amount due before; a checkout of the invoice's page made before
//   is refused at Pay (services/checkouts/pay.ts), its page making one for the new amount, and a
//   charge its collection read before is not written (db/invoice-charges.ts).
// - on a paid invoice it refunds to the card that paid it (through the refund service and its
//   workflow, a key of its own so nothing is refunded twice), up to what that payment still has to
//   refund, and credits the rest (and `creditCents`) to the customer's balance; `amountDueCents`
//   falls too (`amountPaidCents` stays what was paid). Refunds of that payment made through POST
//   /v1/refunds count against the invoice's total with its credit notes.
// Numbered CN-000001 upward per account and mode; credit_note.created in the same transaction.
import { newId } from '../../crypto/ids';
import { findAccount } from '../../db/accounts';
import { addBalanceTransaction } from '../../db/balance-transactions';
import { insertNumberedCreditNote, refundedOutsideCreditNotes, type CreditNoteRow } from '../../db/credit-notes';
import { recordEvent } from '../../db/events';
import { lockInvoicePayments } from '../../db/invoice-charges';
import { updateInvoice, type InvoiceRow } from '../../db/invoices';
import { findPayment } from '../../db/payments';
import { REFUND_MIN_CENTS, REFUNDABLE_STATUSES } from '../../db/refunds';
import { planCreditNote, type CreditNoteAsk, type CreditNoteReason } from '../../domain/credit';
import { ApiError } from '../../domain/errors';
import { amountDueSettlement } from '../../domain/invoices';
import { centsFromDb } from '../../domain/money';
import { creditNoteView } from '../../views/credit';
import { balanceTransaction } from '../balance/adjust';
import type { AccountScope, TransactionContext } from '../context';
import { carryOver } from '../invoices/carry-over';
import { recordInvoicePaid } from '../invoices/collect';
import { findOwned } from '../owned';
import { createRefund, leftOf } from '../refunds/create';
import { billingNowOf } from '../test-clocks/billing-now';

export interface CreditNoteInput extends CreditNoteAsk {
  invoiceId: string;
  reason?: CreditNoteReason;
  memo?: string;
}

/**
 * What the payment that paid the invoice can still refund (0: none paid it, or it cannot be refunded
 * now) and what its refunds outside credit notes gave back, its row locked to the transaction's end
 * so that a refund of it through POST /v1/refunds waits for this credit note.
 */
async function cardOf(ctx: TransactionContext, invoice: InvoiceRow): Promise<{ refundableCents: number; refundedElsewhereCents: number }> {
  if (invoice.status !== 'paid' || invoice.paid_payment_id == null) return { refundableCents: 0, refundedElsewhereCents: 0 };
  const payment = await findPayment(ctx.db, invoice.paid_payment_id, true);
  return {
    refundableCents: REFUNDABLE_STATUSES.includes(payment.status) ? leftOf(payment) : 0,
    refundedElsewhereCents: await refundedOutsideCreditNotes(ctx.db, invoice, payment.id),
  };
}

/**
 * A payment of the open invoice is with the processor, or has succeeded and is not yet applied to
 * it: it took (or will take) the amount due before this credit note. Read under the invoice's lock,
 * which every payment of it is written under.
 */
async function chargeInFlight(ctx: TransactionContext, invoiceId: string): Promise<boolean> {
  return (await ctx.db('payments').where({ invoice_id: invoiceId }).whereIn('status', ['processing', 'succeeded']).first('id')) !== undefined;
}

export async function createCreditNote(ctx: TransactionContext, scope: AccountScope, input: CreditNoteInput): Promise<CreditNoteRow> {
  await findOwned<InvoiceRow>(ctx.db, 'invoices', input.invoiceId, scope, 'invoice');
  const { invoice } = await lockInvoicePayments(ctx.db, input.invoiceId);
  if (invoice.status === 'open' && (await chargeInFlight(ctx, invoice.id))) {
    throw new ApiError('invoice_payment_pending', `A charge of the invoice ${invoice.id} is with the processor: issue the credit note once it is decided (if it succeeds, the invoice is paid and the credit note refunds or credits).`);
  }
  const plan = planCreditNote(
    {
      id: invoice.id,
      status: invoice.status,
      totalCents: centsFromDb(invoice.total_cents),
      creditAppliedCents: centsFromDb(invoice.credit_applied_cents),
      creditNotesCents: centsFromDb(invoice.credit_notes_cents),
      amountDueCents: centsFromDb(invoice.amount_due_cents),
    },
    input,
    { ...(await cardOf(ctx, invoice)), minimumCents: REFUND_MIN_CENTS },
  );
  const now = await billingNowOf(ctx, invoice.customer_id);
  const id = newId('creditNote', now.getTime());
  let refundId: string | null = null;
  if (plan.refundCents > 0) {
    const key = { scope: { accountId: invoice.account_id, mode: invoice.mode, key: `kasi-credit-note-${id}` }, fingerprint: `credit note ${id}`, now: ctx.clock.now() };
    const reason = `Credit note on invoice ${invoice.number}`;
    refundId = (await createRefund(ctx, { account: (await findAccount(ctx.db, invoice.account_id))!, mode: invoice.mode }, { paymentId: invoice.paid_payment_id!, amountCents: plan.refundCents, reason }, key)).refund.id;
  }
  const note = await insertNumberedCreditNote(ctx.db, {
    id,
    account_id: invoice.account_id,
    mode: invoice.mode,
    invoice_id: invoice.id,
    customer_id: invoice.customer_id,
    amount_cents: input.amountCents,
    refund_cents: plan.refundCents,
    credit_cents: plan.creditCents,
    refund_id: refundId,
    reason: input.reason ?? null,
    memo: input.memo ?? null,
    created_at: now,
  });
  const lowered = await updateInvoice(ctx.db, invoice.id, { credit_notes_cents: plan.creditNotesCents, amount_due_cents: plan.amountDueCents });
  await recordEvent(ctx.db, { accountId: note.account_id, mode: note.mode, type: 'credit_note.created', data: creditNoteView(note), now });
  if (lowered.status === 'open') {
    const settlement = amountDueSettlement(plan.amountDueCents);
    if (settlement === 'paid') await recordInvoicePaid(ctx, lowered, now);
    else if (settlement === 'carry_over') await carryOver(ctx, lowered, now);
  }
  // Last: the customer's row is locked after the invoice's subscription (paid above), as a renewal takes them.
  if (plan.creditCents > 0) {
    await addBalanceTransaction(ctx.db, balanceTransaction({ id: invoice.customer_id, account_id: invoice.account_id, mode: invoice.mode }, 'credit_note', plan.creditCents, now, { invoiceId: invoice.id, creditNoteId: id, description: `Credit note ${note.number}` }));
  }
  return note;
}
