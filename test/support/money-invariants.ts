// The invariants of invoice money (docs/reference/invoices.md "One invoice, one payment"), checked over
// every invoice and payment in a test's database once its workflows have settled: any test may
// call assertMoneyInvariants after it has let the processor answer.
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import type { InvoiceRow } from '../../db/invoices';
import { PAID_BY_CARRY_OVER_SQL } from './carry-over';

/** Payment statuses that hold money taken (some of it perhaps refunded). */
const TAKEN = ['succeeded', 'partially_refunded', 'refunded'];

/** An invoice as the invariants read it: `carried`, paid by carrying its amount onto the next invoice. */
type InvoiceFacts = InvoiceRow & { carried: boolean };

/**
 * The ways an invoice is paid without a card payment that paid it: it owed nothing when paid
 * (finalised with amount due 0, paid at once, one whose total was below zero having its total
 * added to the customer's credit balance; or brought to 0 by credit notes), or it owed 1 to 999 cents, below a card payment's minimum, carried
 * onto the customer's next invoice. A new way is named here and the invariants follow.
 */
function paidWithoutPayment(invoice: InvoiceFacts): boolean {
  return Number(invoice.amount_paid_cents) === 0 || invoice.carried;
}

interface PaymentFacts {
  id: string;
  invoice_id: string | null;
  status: string;
  amount_cents: string;
  refunded_cents: string;
  /** The processor has answered its attempt (the sandbox's session decided, or its charge's answer due by `now`). */
  answered: boolean;
  /** Its refunds still with the processor, or failed. */
  unsettled_refunds: string;
}

/**
 * Everything wrong with the money in the database, as sentences (none when all holds), at `now`
 * (the service's clock, which the sandbox's charges answer on):
 * - every invoice finalised owes total − credit applied − credit notes, never below zero;
 * - no payment is `processing` once the processor has answered it;
 * - an invoice is paid if and only if a payment of it that took its amount due paid it
 *   (`paid_payment_id`), or it was paid without one (paidWithoutPayment), and `amountPaidCents`
 *   is then its amount due, less only by credit notes issued on it since (0 otherwise);
 * - every other payment of an invoice that took money (a second payment, one for an invoice voided,
 *   uncollectible or paid meanwhile) is refunded in full, its refunds succeeded: what an invoice
 *   keeps (what its payments took, less the refunds of those that did not pay it) never exceeds
 *   its amount due, equals `amountPaidCents`, and no money rests on a void or uncollectible invoice.
 */
export async function moneyViolations(knex: Knex, now: Date): Promise<string[]> {
  const wrong: string[] = [];
  const payments = (
    await knex.raw<{ rows: PaymentFacts[] }>(
      `select p.id, p.invoice_id, p.status, p.amount_cents, p.refunded_cents,
        exists (select 1 from sandbox_sessions s where s.reference = p.id || '.' || p.attempts and s.status in ('approved', 'declined', 'canceled'))
          or exists (select 1 from sandbox_charges c where c.reference = p.id || '.' || p.attempts and c.settles_at <= ?) as answered,
        (select count(*) from refunds r where r.payment_id = p.id and r.status <> 'succeeded') as unsettled_refunds
      from payments p`,
      [now],
    )
  ).rows;
  for (const p of payments) if (p.status === 'processing' && p.answered) wrong.push(`payment ${p.id} is processing although the processor has answered`);
  const invoices = (await knex.raw<{ rows: InvoiceFacts[] }>(`select i.*, ${PAID_BY_CARRY_OVER_SQL('i')} as carried from invoices i where i.status <> 'draft'`)).rows;
  const byInvoice = new Map<string, PaymentFacts[]>();
  for (const p of payments) if (p.invoice_id !== null) byInvoice.set(p.invoice_id, [...(byInvoice.get(p.invoice_id) ?? []), p]);
  for (const invoice of invoices) {
    const own = byInvoice.get(invoice.id) ?? [];
    // What was due when it was paid: credit notes issued after lower the amount due, not what was paid.
    const due = invoice.status === 'paid' ? Number(invoice.amount_paid_cents) : Number(invoice.amount_due_cents);
    const paidBy = own.find((p) => p.id === invoice.paid_payment_id);
    const name = `invoice ${invoice.id} (${invoice.status}, due ${Number(invoice.amount_due_cents)}, paid ${Number(invoice.amount_paid_cents)})`;
    const owed = Math.max(0, Number(invoice.total_cents) - Number(invoice.credit_applied_cents) - Number(invoice.credit_notes_cents));
    if (Number(invoice.amount_due_cents) !== owed) wrong.push(`${name}: amountDueCents is not total − credit applied − credit notes (${owed})`);
    if (invoice.status === 'paid') {
      const byPayment = paidBy !== undefined && TAKEN.includes(paidBy.status) && Number(paidBy.amount_cents) === due;
      if (!byPayment && !paidWithoutPayment(invoice)) wrong.push(`${name} is paid, but no payment of it paid it`);
      const lowered = due - Number(invoice.amount_due_cents);
      if (lowered < 0 || lowered > Number(invoice.credit_notes_cents)) wrong.push(`${name}: amountPaidCents is not its amount due (before the credit notes issued once it was paid)`);
    } else {
      if (invoice.paid_payment_id != null) wrong.push(`${name} names a payment that paid it`);
      if (Number(invoice.amount_paid_cents) !== 0) wrong.push(`${name} is not paid but has amountPaidCents`);
    }
    // What its payments took, less what was given back of those that did not pay it (the payer's
    // own refunds are the merchant's business).
    let kept = 0;
    for (const p of own.filter((q) => TAKEN.includes(q.status))) {
      kept += Number(p.amount_cents);
      if (p === paidBy) continue;
      kept -= Number(p.refunded_cents);
      if (Number(p.refunded_cents) !== Number(p.amount_cents)) wrong.push(`${name}: payment ${p.id} (${p.status}) took money it does not owe and is not refunded in full`);
      if (Number(p.unsettled_refunds) > 0) wrong.push(`${name}: payment ${p.id} has refunds not succeeded`);
    }
    if (kept > due) wrong.push(`${name} keeps ${kept}, more than its amount due`);
    if (kept !== Number(invoice.amount_paid_cents) && !(invoice.status === 'paid' && paidWithoutPayment(invoice))) wrong.push(`${name} keeps ${kept}, not its amountPaidCents`);
  }
  return wrong;
}

/** Fails with every violation of moneyViolations. */
export async function assertMoneyInvariants(knex: Knex, now: Date): Promise<void> {
  assert.deepEqual(await moneyViolations(knex, now), []);
}
