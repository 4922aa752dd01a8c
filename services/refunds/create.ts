// Refund a payment (POST /v1/refunds): one statement checks that the payment is this account's,
// of this mode and refundable, and that the amount fits in what is left, and only then writes the
// refund `pending` and adds it to the payment's `refundedCents` (status `partially_refunded` or
// `refunded`): atomic in PostgreSQL, so concurrent refunds never sum past the amount paid. The
// refund's workflow starts after the commit and takes it to the processor.
import { newId } from '../../crypto/ids';
import { ApiError } from '../../domain/errors';
import { centsFromDb } from '../../domain/money';
import { openRefund, REFUND_MIN_CENTS, REFUNDABLE_STATUSES, type RefundRow } from '../../db/refunds';
import { refundStart } from '../../orchestration/starts';
import type { AccountScope, ServiceContext } from '../context';

export interface RefundInput {
  paymentId: string;
  /** Omitted: everything still refundable. */
  amountCents?: number;
  reason?: string;
}

export async function createRefund(ctx: ServiceContext, scope: AccountScope, input: RefundInput): Promise<RefundRow> {
  const now = ctx.clock.now();
  const { payment, refund } = await openRefund(ctx.db, {
    id: newId('refund', now.getTime()),
    accountId: scope.account.id,
    mode: scope.mode,
    paymentId: input.paymentId,
    amountCents: input.amountCents ?? null,
    reason: input.reason ?? null,
    now,
  });
  if (payment === null) throw new ApiError('NOT_FOUND', `No payment with id ${input.paymentId}.`);
  if (payment.mode !== scope.mode) {
    throw new ApiError('mode_mismatch', `The payment ${input.paymentId} is a ${payment.mode} object: use a ${payment.mode} key.`);
  }
  if (!REFUNDABLE_STATUSES.includes(payment.status)) {
    throw new ApiError('not_refundable', `The payment is ${payment.status}: only a succeeded or partially refunded payment can be refunded.`);
  }
  if (refund === null) {
    const leftCents = centsFromDb(payment.amount_cents) - centsFromDb(payment.refunded_cents);
    const asked = input.amountCents === undefined ? 'Everything left' : `${input.amountCents} cents`;
    throw new ApiError('amount', `${asked} cannot be refunded: ${leftCents} cents of the payment are left to refund, and a refund is at least ${REFUND_MIN_CENTS} cents.`, {
      fields: [{ path: 'amountCents', message: `At least ${REFUND_MIN_CENTS} and at most ${leftCents} cents.` }],
    });
  }
  ctx.afterCommit(async () => {
    await ctx.workflows.start(refundStart(refund));
  });
  return refund;
}
