// Properties of credit (domain/credit.ts with domain/invoice-arithmetic.ts), checked with fast-check
// over random invoices (lines of either sign), starting balances, payments, refunds made before
// any credit note and credit notes of every kind, as the services apply them: what the customer
// paid (card, less refunds, plus the balance used, less what went back to the balance, plus what
// is still due) always equals the invoice's total less its credit notes and those refunds; amount
// due is total − credit applied − credit notes and never below zero; credit notes and those
// refunds never pass the total together; refunds never pass what the card paid; and
// the balance never goes below zero (only through an adjustment, which these never make).
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { planCreditNote } from '../../domain/credit';
import { ApiError } from '../../domain/errors';
import { invoiceAmounts } from '../../domain/invoice-arithmetic';
import type { InvoiceLine, InvoiceStatus } from '../../domain/invoices';

const RUNS = { numRuns: 2000, seed: 0xc4ed17 };
const REFUND_MIN_CENTS = 100;

const line = fc.integer({ min: -200_000, max: 500_000 }).map((amountCents): InvoiceLine => ({ description: 'x', quantity: 1, unitAmountCents: amountCents, amountCents, periodStart: null, periodEnd: null, proration: false, priceId: null }));
const step = fc.oneof(
  fc.record({ kind: fc.constant('pay' as const) }),
  // A refund of the invoice's payment through POST /v1/refunds (outside credit notes): before any credit note (after one, POST /v1/refunds does not look at them).
  fc.record({ kind: fc.constant('refund' as const), amountCents: fc.integer({ min: 0, max: 600_000 }) }),
  fc.record({
    kind: fc.constant('note' as const),
    amountCents: fc.oneof(fc.integer({ min: 0, max: 600_000 }), fc.integer({ min: 0, max: 2_000 })),
    split: fc.option(fc.record({ refundCents: fc.option(fc.integer({ min: 0, max: 600_000 }), { nil: undefined }), creditCents: fc.option(fc.integer({ min: 0, max: 600_000 }), { nil: undefined }) }), { nil: undefined }),
  }),
);

describe('credit: properties', () => {
  it('the customer pays exactly the total less the credit notes, through card, balance and what is due; nothing goes below zero', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 800_000 }), fc.array(step, { maxLength: 8 }), (lines, startingBalance, steps) => {
        // Finalisation (services/balance/apply.ts): a positive balance used, a negative total to the balance.
        const amounts = invoiceAmounts(lines, { creditBalanceCents: startingBalance });
        const total = amounts.totalCents;
        let balance = startingBalance - amounts.creditAppliedCents + (total < 0 ? -total : 0);
        let credited = total < 0 ? -total : 0;
        let status: InvoiceStatus = amounts.amountDueCents === 0 ? 'paid' : 'open';
        let due = amounts.amountDueCents;
        let notes = 0;
        let cardPaid = 0;
        let refunded = 0;
        let refundedElsewhere = 0;
        for (const s of steps) {
          if (s.kind === 'pay') {
            if (status === 'open') [cardPaid, status] = [due, 'paid'];
            continue;
          }
          if (s.kind === 'refund') {
            if (status === 'paid' && notes === 0 && s.amountCents >= REFUND_MIN_CENTS && s.amountCents <= cardPaid - refunded) [refunded, refundedElsewhere] = [refunded + s.amountCents, refundedElsewhere + s.amountCents];
            continue;
          }
          const ask = { amountCents: s.amountCents, ...(s.split ?? {}) };
          let plan;
          try {
            plan = planCreditNote({ id: 'in_x', status, totalCents: total, creditAppliedCents: amounts.creditAppliedCents, creditNotesCents: notes, amountDueCents: due }, ask, { refundableCents: cardPaid - refunded, refundedElsewhereCents: refundedElsewhere, minimumCents: REFUND_MIN_CENTS });
          } catch (err) {
            assert.ok(err instanceof ApiError && ['credit_note_amount', 'VALIDATION_FAILED'].includes(err.reason ?? err.code), String(err));
            // Refused only for what the rules refuse.
            const over = s.amountCents < 1 || notes + refundedElsewhere + s.amountCents > Math.max(0, total);
            const splitWrong = s.split !== undefined && (status === 'open' ? s.split.refundCents !== undefined || s.split.creditCents !== undefined : true);
            assert.ok(over || splitWrong, `refused: ${JSON.stringify({ ask, status, total, notes })}`);
            continue;
          }
          assert.equal(plan.refundCents + plan.creditCents + (status === 'open' ? due - plan.amountDueCents : 0), s.amountCents, 'a note goes to the card, the balance or off what is due, all of it');
          assert.ok(plan.refundCents === 0 || plan.refundCents >= REFUND_MIN_CENTS);
          [notes, due, refunded, credited, balance] = [plan.creditNotesCents, plan.amountDueCents, refunded + plan.refundCents, credited + plan.creditCents, balance + plan.creditCents];
          if (status === 'open' && due === 0) status = 'paid';
          assert.ok(plan.refundCents >= 0 && plan.creditCents >= 0);
        }
        assert.ok(notes + refundedElsewhere <= Math.max(0, total), 'credit notes, with the refunds made before them, never pass the total');
        assert.equal(due, Math.max(0, total - amounts.creditAppliedCents - notes), 'amount due = total − credit applied − credit notes, never below zero');
        assert.ok(refunded <= cardPaid, 'never refunded more than the card paid');
        assert.ok(balance >= 0, 'the balance never goes below zero');
        assert.ok(amounts.creditAppliedCents <= Math.max(0, total) && amounts.creditAppliedCents <= startingBalance);
        assert.equal(cardPaid - refunded + amounts.creditAppliedCents - credited + (status === 'open' ? due : 0), total - notes - refundedElsewhere, 'what the customer paid is the total less its credit notes and refunds');
      }),
      RUNS,
    );
  });
});
