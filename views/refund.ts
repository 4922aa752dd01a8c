// The public Refund object (API answers and the refund.* event payloads alike).
import type { RefundRow } from '../db/refunds';
import { centsFromDb, CURRENCY } from '../domain/money';
import { timestamp } from '../domain/time';

export function refundView(row: RefundRow) {
  return {
    object: 'refund' as const,
    id: row.id,
    mode: row.mode,
    paymentId: row.payment_id,
    status: row.status,
    amountCents: centsFromDb(row.amount_cents),
    currency: CURRENCY,
    reason: row.reason,
    failureMessage: row.failure_message,
    createdAt: row.created_at.toISOString(),
    succeededAt: timestamp(row.succeeded_at),
  };
}
export type RefundView = ReturnType<typeof refundView>;
