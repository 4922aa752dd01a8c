// Take a pending refund to the processor and record what it decides: `submitRefund` asks for the
// refund (by the refund's own id, so a retry never refunds twice), `settleRefund` asks where it
// stands. While the payment has not settled the processor answers pending (with when it expects
// to decide, if it knows); a decided outcome is recorded once, in one transaction with its event:
// `succeeded` with `succeededAt` (refund.succeeded), or `failed` with why (refund.failed), its
// amount refundable again and the payment's status following. Called by the refund's workflow.
import { centsFromDb } from '../../domain/money';
import { recordEvent } from '../../db/events';
import { processorReference } from '../../db/payments';
import { findRefundToSettle, markRefundFailed, markRefundSucceeded, type RefundRow, type RefundToSettle } from '../../db/refunds';
import type { CardProcessor, RefundOutcome } from '../../processor/port';
import { refundView } from '../../views/refund';
import type { ProcessorServiceDeps } from '../context';
import { inTransaction } from '../run';

/** What the workflow learns: decided, or pending with when to ask again (ISO 8601, if known). */
export type RefundProgress = { status: 'pending'; askAt: string | null } | { status: 'succeeded' | 'failed' };

type Ask = (processor: CardProcessor, refund: RefundToSettle) => Promise<RefundOutcome>;

async function settle(deps: ProcessorServiceDeps, refundId: string, ask: Ask): Promise<RefundProgress> {
  const refund = await findRefundToSettle(deps.db, refundId);
  if (refund.status !== 'pending') return { status: refund.status };
  const processor = deps.processors.forMode(refund.mode);
  // No processor takes this mode's refunds yet (live): asked again later.
  if (processor === null) return { status: 'pending', askAt: null };
  const outcome = await ask(processor, refund);
  if (outcome.status === 'pending') return { status: 'pending', askAt: outcome.expectedAt?.toISOString() ?? null };
  const now = deps.clock.now();
  const eventOf = (row: RefundRow) => ({ accountId: row.account_id, mode: row.mode, type: `refund.${row.status as 'succeeded' | 'failed'}` as const, data: refundView(row), now });
  // A success is the hot path: one statement with its event (nothing but this changes a pending
  // refund, so the event carries the refund as read, succeeded). A failure also gives the amount
  // back to the payment: a transaction.
  const recorded =
    outcome.status === 'succeeded'
      ? await markRefundSucceeded(deps.db, refundId, now, eventOf({ ...refund, status: 'succeeded', succeeded_at: now }))
      : await inTransaction(deps, async ({ db: trx }) => {
          const row = await markRefundFailed(trx, refundId, outcome.message);
          if (row !== undefined) await recordEvent(trx, eventOf(row));
          return row;
        });
  if (recorded === undefined) return { status: (await findRefundToSettle(deps.db, refundId)).status as 'succeeded' | 'failed' };
  const { id, payment_id: paymentId, account_id: accountId, mode, amount_cents: amount, failure_message: failureMessage } = recorded;
  deps.log.info({ refundId: id, paymentId, accountId, mode, amountCents: centsFromDb(amount), failureMessage }, `refund ${recorded.status}`);
  return { status: outcome.status };
}

/** Asks the processor for the refund of the payment's approved charge, and records it if decided. */
export function submitRefund(deps: ProcessorServiceDeps, refundId: string): Promise<RefundProgress> {
  return settle(deps, refundId, (processor, refund) =>
    processor.refund({ reference: refund.id, paymentReference: processorReference(refund.payment_id, refund.payment_attempt), amountCents: centsFromDb(refund.amount_cents) }),
  );
}

/** Asks the processor where the refund stands, and records it if decided. */
export function settleRefund(deps: ProcessorServiceDeps, refundId: string): Promise<RefundProgress> {
  return settle(deps, refundId, (processor, refund) => processor.refundOutcome(refund.id));
}
