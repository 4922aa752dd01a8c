// Refund a payment (POST /v1/refunds): one statement checks that the payment is this account's,
// of this mode and refundable, and that the amount fits in what is left, and only then records
// the Idempotency-Key with its answer, writes the refund `pending` and adds it to the payment's
// `refundedCents` (status `partially_refunded` or `refunded`): atomic in PostgreSQL, so concurrent
// refunds never sum past the amount paid. The refund's workflow starts after the commit and takes
// it to the processor.
import { newId } from '../../crypto/ids';
import { ApiError } from '../../domain/errors';
import { centsFromDb } from '../../domain/money';
import type { KeyToRecord } from '../../db/idempotency-keys';
import { findRefundablePayment, newRefundRow, openRefund, REFUND_MIN_CENTS, REFUNDABLE_STATUSES, type RefundedPayment, type RefundRow } from '../../db/refunds';
import { refundStart } from '../../orchestration/starts';
import { refundView } from '../../views/refund';
import type { AccountScope, ServiceContext } from '../context';
import { nowOnClock } from '../test-clocks/billing-now';

export interface RefundInput {
  paymentId: string;
  /** Omitted: everything still refundable. */
  amountCents?: number;
  reason?: string;
}

/**
 * The refund is asked for again (each time from the payment as the statement found it) up to this
 * many times in all: when other refunds of the payment commit between reading what is left and
 * taking "everything left", and when the payment turns out to be on a test clock (or its clock moved).
 */
const TRIES = 3;

/** What is left of the payment to refund, in cents. */
export const leftOf = (payment: Pick<RefundedPayment, 'amount_cents' | 'refunded_cents'>) => centsFromDb(payment.amount_cents) - centsFromDb(payment.refunded_cents);

/** Why the payment, as found, takes no refund of `amountCents`. */
function refusal(scope: AccountScope, input: RefundInput, payment: RefundedPayment | null): ApiError {
  if (payment === null) return new ApiError('NOT_FOUND', `No payment with id ${input.paymentId}.`);
  if (payment.mode !== scope.mode) {
    return new ApiError('mode_mismatch', `The payment ${input.paymentId} is a ${payment.mode} object: use a ${payment.mode} key.`);
  }
  if (!REFUNDABLE_STATUSES.includes(payment.status)) {
    return new ApiError('not_refundable', `The payment is ${payment.status}: only a succeeded or partially refunded payment can be refunded.`);
  }
  const leftCents = leftOf(payment);
  const asked = input.amountCents === undefined ? 'Everything left' : `${input.amountCents} cents`;
  return new ApiError('amount', `${asked} cannot be refunded: ${leftCents} cents of the payment are left to refund, and a refund is at least ${REFUND_MIN_CENTS} cents.`, {
    fields: [{ path: 'amountCents', message: `At least ${REFUND_MIN_CENTS} and at most ${leftCents} cents.` }],
  });
}

/**
 * Opens the refund and records `key` with its answer in the same statement (a retry with the key
 * replays it). An omitted amount is what is left when the payment is read, taken only if it is
 * still all that is left.
 */
export async function createRefund(ctx: ServiceContext, scope: AccountScope, input: RefundInput, key: KeyToRecord): Promise<{ refund: RefundRow; json: string }> {
  let found: RefundedPayment | null = null;
  if (input.amountCents === undefined) {
    found = await findRefundablePayment(ctx.db, scope.account.id, input.paymentId);
    if (found === null || found.mode !== scope.mode || !REFUNDABLE_STATUSES.includes(found.status)) throw refusal(scope, input, found);
  }
  // Dated as its payment: at the test clock's time when it paid a clock customer's invoice. Not read
  // before unless read already: the statement writes nothing at another time and says the clock's.
  let now = nowOnClock(ctx, found?.clock_time ?? null);
  for (let tries = 1; ; tries++) {
    const id = newId('refund', now.getTime());
    const amountCents = input.amountCents ?? leftOf(found!);
    const refund = newRefundRow({ id, account_id: scope.account.id, mode: scope.mode, payment_id: input.paymentId, amount_cents: amountCents, reason: input.reason ?? null, created_at: now });
    // The answer is recorded with the key in the write itself, so it is made first.
    const json = JSON.stringify(refundView(refund));
    const { opened, payment } = await openRefund(ctx.db, refund, { key, answer: { status: 201, json } });
    if (opened) {
      ctx.afterCommit(async () => {
        await ctx.workflows.start(refundStart(refund));
      });
      return { refund, json };
    }
    const clockTime = payment?.clock_time ?? null;
    const otherTime = clockTime !== null && clockTime.getTime() !== now.getTime();
    const leftMoved = input.amountCents === undefined && payment !== null && REFUNDABLE_STATUSES.includes(payment.status) && leftOf(payment) !== amountCents;
    if (!(otherTime || leftMoved) || tries === TRIES) throw refusal(scope, input, payment);
    found = payment;
    if (clockTime !== null) now = clockTime;
  }
}
