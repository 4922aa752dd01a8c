// The sandbox's refunds (table sandbox_refunds). Like a bank, the sandbox refunds only settled
// payments: an approved payment settles `sandboxSettlementMs` after its approval
// (KASI_SANDBOX_SETTLEMENT_MS, a few seconds), and a refund asked for before then is reported
// pending until that moment. A refund is decided when it is asked for: it fails when the sandbox
// has no approved payment with that reference, or when the payment's card has expiry 09/39 (the
// test card whose bank returns refunds: docs/refunds.md); otherwise it succeeds.
import type { Knex } from 'knex';
import { DEFAULT_SANDBOX_SETTLEMENT_MS } from '../../config';
import type { Clock } from '../../domain/clock';
import type { CardProcessor, RefundOutcome } from '../port';

export const REFUND_FAILURES = {
  noPayment: 'The processor has no approved payment with this reference: nothing was refunded.',
  accountClosed: 'The card\'s bank returned the refund: the account the card belongs to is closed.',
} as const;

/** 09/39: approved when paid, and every refund of it fails. */
function refundsFail(card: { expiry_month: number | null; expiry_year: number | null }): boolean {
  return card.expiry_month === 9 && card.expiry_year === 2039;
}

interface RefundRow {
  status: 'succeeded' | 'failed';
  failure_message: string | null;
  settles_at: Date;
}

/**
 * The approved payment of a reference, a hosted session's or a saved-card charge's: when it was
 * approved, and its card's expiry.
 */
const APPROVED_PAYMENT_SQL = `select approved_at, expiry_month, expiry_year from (
    select updated_at as approved_at, expiry_month, expiry_year from sandbox_sessions where reference = ? and status = 'approved'
    union all
    select c.settles_at, t.expiry_month, t.expiry_year from sandbox_charges c join sandbox_tokens t on t.token = c.token
      where c.reference = ? and c.status = 'approved'
  ) approved limit 1`;

function outcomeOf(row: RefundRow | undefined, now: Date): RefundOutcome {
  if (row === undefined) return { status: 'pending', expectedAt: null };
  if (row.settles_at.getTime() > now.getTime()) return { status: 'pending', expectedAt: row.settles_at };
  return row.status === 'succeeded' ? { status: 'succeeded' } : { status: 'failed', message: row.failure_message as string };
}

export function createSandboxRefunds(deps: { db: Knex; clock: Clock; sandboxSettlementMs?: number }): Pick<CardProcessor, 'refund' | 'refundOutcome'> {
  const { db, clock } = deps;
  const settlementMs = deps.sandboxSettlementMs ?? DEFAULT_SANDBOX_SETTLEMENT_MS;
  const find = async (reference: string) => (await db('sandbox_refunds').where({ reference }).first()) as RefundRow | undefined;
  return {
    async refund(request) {
      const now = clock.now();
      const { rows } = (await db.raw(APPROVED_PAYMENT_SQL, [request.paymentReference, request.paymentReference])) as {
        rows: { approved_at: Date; expiry_month: number | null; expiry_year: number | null }[];
      };
      const paid = rows[0];
      const failure = paid === undefined ? REFUND_FAILURES.noPayment : refundsFail(paid) ? REFUND_FAILURES.accountClosed : null;
      const settlesAt = paid === undefined ? now : new Date(Math.max(now.getTime(), paid.approved_at.getTime() + settlementMs));
      // One refund per reference: a repeated request finds the first, as it was decided then.
      const [made] = (await db('sandbox_refunds')
        .insert({
          reference: request.reference,
          payment_reference: request.paymentReference,
          amount_cents: request.amountCents,
          status: failure === null ? 'succeeded' : 'failed',
          failure_message: failure,
          settles_at: settlesAt,
          created_at: now,
        })
        .onConflict('reference')
        .ignore()
        .returning(['status', 'failure_message', 'settles_at'])) as RefundRow[];
      return outcomeOf(made ?? (await find(request.reference)), now);
    },
    async refundOutcome(reference) {
      return outcomeOf(await find(reference), clock.now());
    },
  };
}
