// Credit's pure rules (DESIGN.md "Adjustments and usage: the resources" and the fine print on
// credit notes): balance transactions' types, credit notes' numbers, and what a credit
// note does to its invoice: on an open one it lowers what is due (what it gives beyond that goes to
// the customer's balance); on a paid one it refunds to the card, up to what the card paid and is
// still refundable, and credits the rest to the balance. Never more than the invoice's total in all.
import { ApiError } from './errors';
import { amountDue } from './invoice-arithmetic';
import type { InvoiceStatus } from './invoices';

/** `CN-000042`: six digits at least, per account and mode (written by db/credit-notes.ts). */
export const CREDIT_NOTE_NUMBER_FORM = { prefix: 'CN-', digits: 6 } as const;

/** Why a customer's credit balance moved: by hand (the API), used by an invoice, from a credit note, or an invoice's total below zero. */
export const BALANCE_TRANSACTION_TYPES = ['adjustment', 'applied_to_invoice', 'credit_note', 'invoice_negative'] as const;
export type BalanceTransactionType = (typeof BALANCE_TRANSACTION_TYPES)[number];

export const CREDIT_NOTE_REASONS = ['duplicate', 'fraudulent', 'order_change', 'product_unsatisfactory'] as const;
export type CreditNoteReason = (typeof CREDIT_NOTE_REASONS)[number];

/** What a credit note is asked to do. */
export interface CreditNoteAsk {
  amountCents: number;
  refundCents?: number;
  creditCents?: number;
}

/** The invoice's amounts a credit note reads. */
export interface CreditedInvoice {
  id: string;
  status: InvoiceStatus;
  totalCents: number;
  creditAppliedCents: number;
  creditNotesCents: number;
  amountDueCents: number;
}

/** What a credit note does: to the card, to the balance, and the invoice's credit notes and amount due after it. */
export interface CreditNotePlan {
  refundCents: number;
  creditCents: number;
  creditNotesCents: number;
  amountDueCents: number;
}

const amountRefusal = (message: string, path = 'amountCents') => new ApiError('credit_note_amount', message, { fields: [{ path, message }] });

/**
 * The credit note `ask` on `invoice`, or why not: 409 invoice_not_open unless the invoice is open or
 * paid; 400 credit_note_amount for 0, or for more than what is left of the invoice's total after its
 * credit notes, or a split that does not add up; `refundCents`/`creditCents` only on a paid invoice.
 * `card`: what the card that paid it can take back now (0: no card paid it), what refunds of it made
 * outside credit notes (POST /v1/refunds) gave back already, and a refund's minimum; a refund asked
 * beyond what it can take, or below the minimum, goes to the balance instead. Money refunded outside
 * credit notes was given back on this invoice too: it counts against its total, else a credit note
 * of the whole total would credit to the balance what the card had already been refunded.
 */
export function planCreditNote(invoice: CreditedInvoice, ask: CreditNoteAsk, card: { refundableCents: number; refundedElsewhereCents: number; minimumCents: number }): CreditNotePlan {
  if (invoice.status !== 'open' && invoice.status !== 'paid') {
    throw new ApiError('invoice_not_open', `The invoice ${invoice.id} is ${invoice.status}: a credit note is issued only on an open or paid invoice.`);
  }
  const leftCents = Math.max(0, invoice.totalCents - invoice.creditNotesCents - card.refundedElsewhereCents);
  if (ask.amountCents < 1 || ask.amountCents > leftCents) {
    const elsewhere = card.refundedElsewhereCents > 0 ? `, refunds of its payment outside credit notes ${card.refundedElsewhereCents}` : '';
    throw amountRefusal(`${ask.amountCents} cents cannot be credited: the invoice's total is ${invoice.totalCents} cents and its credit notes so far ${invoice.creditNotesCents}${elsewhere}, so at least 1 and at most ${leftCents} cents are left.`);
  }
  const creditNotesCents = invoice.creditNotesCents + ask.amountCents;
  const amountDueCents = amountDue(invoice.totalCents, invoice.creditAppliedCents, creditNotesCents);
  if (invoice.status === 'open') {
    if (ask.refundCents !== undefined || ask.creditCents !== undefined) {
      throw new ApiError('VALIDATION_FAILED', 'The body is not valid.', { fields: [{ path: ask.refundCents !== undefined ? 'refundCents' : 'creditCents', message: 'Only on a paid invoice: on an open one a credit note lowers what is due.' }] });
    }
    // What it takes off the amount due; the rest (credit the customer had applied already) goes to the balance.
    const lowered = invoice.amountDueCents - amountDueCents;
    return { refundCents: 0, creditCents: ask.amountCents - lowered, creditNotesCents, amountDueCents };
  }
  const refundAsked = ask.refundCents ?? (ask.creditCents === undefined ? ask.amountCents : ask.amountCents - ask.creditCents);
  const creditAsked = ask.creditCents ?? ask.amountCents - refundAsked;
  if (refundAsked < 0 || creditAsked < 0 || refundAsked + creditAsked !== ask.amountCents) {
    throw amountRefusal(`refundCents (${refundAsked}) and creditCents (${creditAsked}) must add up to amountCents (${ask.amountCents}).`, ask.refundCents !== undefined ? 'refundCents' : 'creditCents');
  }
  const toCard = Math.min(refundAsked, card.refundableCents);
  const refundCents = toCard < card.minimumCents ? 0 : toCard;
  return { refundCents, creditCents: ask.amountCents - refundCents, creditNotesCents, amountDueCents };
}
