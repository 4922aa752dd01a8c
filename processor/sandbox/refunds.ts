// The sandbox's refunds (table sandbox_refunds). Like a bank, the sandbox refunds only settled
// payments: an approved payment settles `sandboxSettlementMs` after its approval
// (KASI_SANDBOX_SETTLEMENT_MS, a few seconds), and a refund asked for before then is reported
// pending until that moment. A refund is decided when it is asked for: it fails when the sandbox
// has no approved payment with that reference, or when the payment's card has expiry 09/39 (the
// test card whose bank returns refunds: docs/reference/refunds.md); otherwise it succeeds.
import type { Knex } from 'knex';
import { DEFAULT_SANDBOX_SETTLEMENT_MS } from '../../config';
import type { Clock } from '../../domain/clock';
import { sql } from '../../db/sql';
import type { CardProcessor, RefundOutcome } from '../port';
import { expiryKey } from './cards';

export const REFUND_FAILURES = {
  noPayment: 'The processor has no approved payment with this reference: nothing was refunded.',
  accountClosed: 'The card\'s bank returned the refund: the account the card belongs to is closed.',
} as const;

/** 09/39: approved when paid, and every refund of it fails. */
function refundsFail(card: { expiry_month: number | null; expiry_year: number | null }): boolean {
  return card.expiry_month !== null && card.expiry_year !== null && expiryKey(card.expiry_month, card.expiry_year) === '09/39';
}

interface RefundRow {
  reference: string;
  status: 'succeeded' | 'failed';
  failure_message: string | null;
  settles_at: Date;
}

/**
 * The approved payment of each reference, a hosted session's or a saved-card charge's: when it was
 * approved, and its card's expiry. None for a reference without one.
 */
const APPROVED_PAYMENTS_SQL = `select r.reference, a.approved_at, a.expiry_month, a.expiry_year
  from unnest($1::text[]) as r(reference) cross join lateral (
    select updated_at as approved_at, expiry_month, expiry_year from sandbox_sessions where reference = r.reference and status = 'approved'
    union all
    select c.settles_at, t.expiry_month, t.expiry_year from sandbox_charges c join sandbox_tokens t on t.token = c.token
      where c.reference = r.reference and c.status = 'approved'
    limit 1
  ) a`;

// One refund per reference: a repeated request makes none (and is read after). Written in the
// order of their references, so that two batches making some of the same never wait on each other
// in a cycle.
const INSERT_REFUNDS_SQL = `insert into sandbox_refunds (reference, payment_reference, amount_cents, status, failure_message, settles_at, created_at)
  select *, $7::timestamptz from unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::timestamptz[]) order by 1
  on conflict (reference) do nothing
  returning reference, status, failure_message, settles_at`;

const FIND_REFUNDS_SQL = 'select reference, status, failure_message, settles_at from sandbox_refunds where reference = any($1::text[])';

function outcomeOf(row: RefundRow | undefined, now: Date): RefundOutcome {
  if (row === undefined) return { status: 'pending', expectedAt: null };
  if (row.settles_at.getTime() > now.getTime()) return { status: 'pending', expectedAt: row.settles_at };
  return row.status === 'succeeded' ? { status: 'succeeded' } : { status: 'failed', message: row.failure_message as string };
}

export function createSandboxRefunds(deps: { db: Knex; clock: Clock; sandboxSettlementMs?: number }): Pick<CardProcessor, 'refund' | 'refundOutcome'> {
  const { db, clock } = deps;
  const settlementMs = deps.sandboxSettlementMs ?? DEFAULT_SANDBOX_SETTLEMENT_MS;
  const find = async (references: readonly string[]) => new Map((await sql<RefundRow>(db, FIND_REFUNDS_SQL, [references])).map((row) => [row.reference, row]));
  return {
    async refund(requests) {
      const now = clock.now();
      type Approved = { reference: string; approved_at: Date; expiry_month: number | null; expiry_year: number | null };
      const approved = new Map((await sql<Approved>(db, APPROVED_PAYMENTS_SQL, [requests.map((r) => r.paymentReference)])).map((row) => [row.reference, row]));
      const decisions = requests.map((request) => {
        const paid = approved.get(request.paymentReference);
        const failure = paid === undefined ? REFUND_FAILURES.noPayment : refundsFail(paid) ? REFUND_FAILURES.accountClosed : null;
        return { failure, settlesAt: paid === undefined ? now : new Date(Math.max(now.getTime(), paid.approved_at.getTime() + settlementMs)) };
      });
      const made = await sql<RefundRow>(db, INSERT_REFUNDS_SQL, [
        requests.map((r) => r.reference),
        requests.map((r) => r.paymentReference),
        requests.map((r) => r.amountCents),
        decisions.map((d) => (d.failure === null ? 'succeeded' : 'failed')),
        decisions.map((d) => d.failure),
        decisions.map((d) => d.settlesAt),
        now,
      ]);
      const rows = new Map(made.map((row) => [row.reference, row]));
      // Asked for before (a retry): reported as it was decided then.
      const madeBefore = requests.filter((r) => !rows.has(r.reference)).map((r) => r.reference);
      if (madeBefore.length > 0) for (const [reference, row] of await find(madeBefore)) rows.set(reference, row);
      return requests.map((r) => outcomeOf(rows.get(r.reference), now));
    },
    async refundOutcome(requests) {
      const rows = await find(requests.map((r) => r.reference));
      const now = clock.now();
      return requests.map((r) => outcomeOf(rows.get(r.reference), now));
    },
  };
}
