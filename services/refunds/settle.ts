// Take pending refunds to the processor and record what it decides: `submitRefunds` asks for the
// refunds (each by the refund's own id, so a retry never refunds twice), `settleRefunds` asks where
// they stand. While a payment has not settled the processor answers pending (with when it expects
// to decide, if it knows); a decided outcome is recorded once, with its event: `succeeded` with
// `succeededAt` (refund.succeeded), or `failed` with why (refund.failed), its amount refundable
// again and the payment's status following. Called by the refunds' workflows, those asking at one
// moment together.
import { centsFromDb } from '../../domain/money';
import { changedRow, recordEvent } from '../../db/events';
import { processorReference } from '../../db/payments';
import { findRefundsToSettle, markRefundFailed, refundSucceededStatement, type RefundRow, type RefundToSettle } from '../../db/refunds';
import { runStatements } from '../../db/sql';
import type { CardProcessor, RefundOutcome } from '../../processor/port';
import { refundView } from '../../views/refund';
import type { ProcessorServiceDeps } from '../context';
import { inTransaction } from '../run';

/** What the workflow learns: decided, or pending with when to ask again (ISO 8601, if known). */
export type RefundProgress = { status: 'pending'; askAt: string | null } | { status: 'succeeded' | 'failed' };

type Ask = (processor: CardProcessor, refunds: RefundToSettle[]) => Promise<RefundOutcome[]>;

type Decided = { refund: RefundToSettle; outcome: Exclude<RefundOutcome, { status: 'pending' }> };

/**
 * Records each decided outcome: the successes (the hot path) one statement each with its event,
 * all in one round trip (nothing but this changes a pending refund, so each event carries the
 * refund as read, succeeded); a failure, which also gives the amount back to the payment, in a
 * transaction of its own. Each refund as recorded, or undefined when it was no longer pending.
 */
async function record(deps: ProcessorServiceDeps, decided: readonly Decided[]): Promise<(RefundRow | undefined)[]> {
  const serviceNow = deps.clock.now();
  // A refund is dated as its payment: at the test clock's time when it paid a clock customer's invoice.
  const nowOf = (refund: RefundToSettle) => refund.clock_time ?? serviceNow;
  const eventOf = (row: RefundRow, now: Date) => ({ accountId: row.account_id, mode: row.mode, type: `refund.${row.status as 'succeeded' | 'failed'}` as const, data: refundView(row), now });
  const succeeded = decided.filter((d) => d.outcome.status === 'succeeded');
  const statements = succeeded.map(({ refund }) => {
    const now = nowOf(refund);
    return refundSucceededStatement(refund.id, now, eventOf({ ...refund, status: 'succeeded', succeeded_at: now }, now));
  });
  const recorded = new Map((await runStatements(deps.db, statements)).map((rows, k) => [succeeded[k]!.refund.id, changedRow<RefundRow>(rows)]));
  for (const { refund, outcome } of decided) {
    if (outcome.status !== 'failed') continue;
    const row = await inTransaction(deps, async ({ db: trx }) => {
      const failed = await markRefundFailed(trx, refund.id, outcome.message);
      if (failed !== undefined) await recordEvent(trx, eventOf(failed, nowOf(refund)));
      return failed;
    });
    recorded.set(refund.id, row);
  }
  return decided.map(({ refund }) => recorded.get(refund.id));
}

/**
 * Settles the refunds of `refundIds` (those asked about at one moment, read in one statement and
 * asked of each account's processor in its mode once): their progress, in order.
 */
async function settle(deps: ProcessorServiceDeps, refundIds: readonly string[], ask: Ask): Promise<RefundProgress[]> {
  const ids = [...new Set(refundIds)];
  const refunds = await findRefundsToSettle(deps.db, ids);
  const progress = new Map<string, RefundProgress>(refunds.map((r) => [r.id, r.status === 'pending' ? { status: 'pending', askAt: null } : { status: r.status }]));
  // A live refund of an account with no processor set (any more) stays pending, asked again later.
  const groups = await deps.processors.grouped(refunds.filter((r) => r.status === 'pending'), (r) => ({ accountId: r.account_id, mode: r.mode }));
  const decided: Decided[] = [];
  await Promise.all(
    groups.map(async ({ processor, items }) => {
      (await ask(processor, items)).forEach((outcome, k) => {
        const refund = items[k]!;
        if (outcome.status === 'pending') progress.set(refund.id, { status: 'pending', askAt: outcome.expectedAt?.toISOString() ?? null });
        else decided.push({ refund, outcome });
      });
    }),
  );
  const recorded = await record(deps, decided);
  for (const [k, { refund, outcome }] of decided.entries()) {
    const row = recorded[k];
    // Recorded meanwhile by another call (which logged it): as that call left it.
    if (row === undefined) {
      const [current] = await findRefundsToSettle(deps.db, [refund.id]);
      progress.set(refund.id, { status: current!.status as 'succeeded' | 'failed' });
      continue;
    }
    const { id, payment_id: paymentId, account_id: accountId, mode, amount_cents: amount, failure_message: failureMessage } = row;
    deps.log.info({ refundId: id, paymentId, accountId, mode, amountCents: centsFromDb(amount), failureMessage }, `refund ${row.status}`);
    progress.set(refund.id, { status: outcome.status });
  }
  return refundIds.map((id) => progress.get(id)!);
}

/** The refunds as the processor is asked for them (each by its own id, under its payment's reference). */
const requestsOf = (refunds: readonly RefundToSettle[]) =>
  refunds.map((refund) => ({ reference: refund.id, paymentReference: processorReference(refund.payment_id, refund.payment_attempt), amountCents: centsFromDb(refund.amount_cents) }));

/** Asks the processor for the refunds of the payments' approved charges, and records those decided. */
export function submitRefunds(deps: ProcessorServiceDeps, refundIds: readonly string[]): Promise<RefundProgress[]> {
  return settle(deps, refundIds, (processor, refunds) => processor.refund(requestsOf(refunds)));
}

/** Asks the processor where the refunds stand, and records those decided. */
export function settleRefunds(deps: ProcessorServiceDeps, refundIds: readonly string[]): Promise<RefundProgress[]> {
  return settle(deps, refundIds, (processor, refunds) => processor.refundOutcome(requestsOf(refunds)));
}
