// Money that arrives for an invoice it did not pay (docs/reference/invoices.md "One invoice, one payment"):
// the processor approved a payment of the invoice while the invoice was closed (voided, marked
// uncollectible, its subscription canceled) or paid by another payment, a race no lock at Kasi's
// end can close. It is never kept: what is left of it is refunded through the refund service, as
// a merchant's refund is (its workflow and refund.* events), with a key of its own, so applying
// the outcome again refunds nothing twice.
import type { Logger } from 'pino';
import { findAccount } from '../../db/accounts';
import type { InvoiceRow } from '../../db/invoices';
import { findPayment } from '../../db/payments';
import { REFUND_MIN_CENTS } from '../../db/refunds';
import { ApiError } from '../../domain/errors';
import type { TransactionContext } from '../context';
import { createRefund, leftOf } from '../refunds/create';

/**
 * The refund's Idempotency-Key: one per payment and try (the refunds of it that failed before), so
 * applying the outcome again refunds nothing twice, and a refund the bank returned is made anew.
 */
const latePaymentKey = (paymentId: string, failed: number) => `kasi-invoice-not-open-${paymentId}${failed === 0 ? '' : `-${failed}`}`;

/** Whether the payment (one of the invoice's, in `status`) holds money the invoice does not owe it. */
export function latePayment(invoice: Pick<InvoiceRow, 'status' | 'paid_payment_id'>, payment: { id: string; status: string }): boolean {
  return invoice.status !== 'open' && invoice.paid_payment_id !== payment.id && (payment.status === 'succeeded' || payment.status === 'partially_refunded');
}

/**
 * Refunds what is left of the payment `paymentId` of the invoice (locked by the caller), once;
 * logged. A refusal with something left to refund (a test clock moving meanwhile) fails the
 * caller, whose activity is tried again: the money is never kept silently.
 */
export async function refundLatePayment(ctx: TransactionContext, log: Logger, invoice: InvoiceRow, paymentId: string): Promise<void> {
  const account = (await findAccount(ctx.db, invoice.account_id))!;
  const reason = `The invoice ${invoice.number ?? invoice.id} was ${invoice.status} when this payment succeeded: refunded automatically.`;
  const failed = Number((await ctx.db('refunds').where({ payment_id: paymentId, status: 'failed' }).count<{ count: string }[]>('* as count'))[0]!.count);
  const key = { scope: { accountId: invoice.account_id, mode: invoice.mode, key: latePaymentKey(paymentId, failed) }, fingerprint: `refund ${paymentId}`, now: ctx.clock.now() };
  try {
    const { refund } = await createRefund(ctx, { account, mode: invoice.mode }, { paymentId, reason }, key);
    log.warn({ invoiceId: invoice.id, invoiceStatus: invoice.status, paymentId, refundId: refund.id, amountCents: Number(refund.amount_cents) }, 'payment for an invoice no longer open refunded');
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (leftOf(await findPayment(ctx.db, paymentId)) >= REFUND_MIN_CENTS) throw err;
    // Refunded already (by this, or by the merchant): nothing is left to give back.
    log.warn({ invoiceId: invoice.id, invoiceStatus: invoice.status, paymentId, reason: err.reason ?? err.code }, `payment for an invoice no longer open not refunded automatically: ${err.message}`);
  }
}
