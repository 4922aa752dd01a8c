// The card processor, as the service sees it: a hosted payment session per reference, and the
// outcome it reports. The service hands the customer over and learns only the scheme, last four
// digits, expiry and a token; the card number and CVV stay with the processor. Test mode uses the
// sandbox (processor/sandbox); a live adapter implements the same interface.
import type { CardScheme } from '../domain/card';
import type { Locale } from '../domain/locale';

export interface SessionRequest {
  /** Stable per payment attempt: a repeated call returns the same session, never a new charge. */
  reference: string;
  amountCents: number;
  merchantName: string;
  locale: Locale;
  /** Where the processor sends the customer back once the card and 3-D Secure are done. */
  returnUrl: string;
  /**
   * The customer agreed to keep the card (checked `Save this card`): a processor that needs it
   * (the gateway) sets up the stored-credential agreement with this first payment, so that
   * `saveCard` and later merchant-initiated charges are allowed. The sandbox keeps any card.
   */
  keepCard?: boolean;
  /**
   * When the payment's checkout expires: a processor that can (the gateway, by the session's
   * interaction timeout) stops taking the card then, so nothing is paid after the service has
   * canceled the session. The sandbox's sessions are closed by `cancel` itself.
   */
  expiresAt?: Date;
}

export interface ReportedCard {
  scheme: CardScheme;
  last4: string;
  expiryMonth: number;
  expiryYear: number;
  token: string;
}

export type DeclineCode = 'card_declined' | 'expired_card' | 'insufficient_funds' | 'authentication_failed';

export type ProcessorOutcome =
  | { status: 'pending' }
  | { status: 'approved'; card: ReportedCard }
  | { status: 'declined'; code: DeclineCode; message: string; card: ReportedCard | null }
  | { status: 'canceled' };

/** A card kept for later charges: the processor's reusable token, and the card it stands for. */
export type SaveOutcome = { status: 'saved'; card: ReportedCard } | { status: 'refused'; message: string };

/** A charge of a kept card without the customer present (merchant-initiated). */
export interface SavedCardCharge {
  /** Stable per charge: a repeated call reports the same charge, never makes a new one. */
  reference: string;
  /** The reusable token `saveCard` gave. */
  token: string;
  amountCents: number;
  merchantName: string;
  /**
   * The charge is made in a test clock's time (an invoice of a customer on one): the sandbox's
   * bank answers at once, as the clock's world has no wall time to wait in (Stripe's test clocks
   * likewise settle payments within the advance). A live processor never sees it set.
   */
  onTestClock?: boolean;
}

/** A refund of (part of) an approved payment, made once the payment has settled. */
export interface RefundRequest {
  /** The refund's own, stable: a repeated call never refunds twice. */
  reference: string;
  /** The approved payment's reference (its session's or its charge's). */
  paymentReference: string;
  amountCents: number;
}

/**
 * Where a refund stands: `pending` while the payment has not settled (the processor refunds only
 * settled payments), with when it expects to decide if it knows; then succeeded or failed, why.
 */
export type RefundOutcome =
  | { status: 'pending'; expectedAt: Date | null }
  | { status: 'succeeded' }
  | { status: 'failed'; message: string };

export interface CardProcessor {
  openSession(request: SessionRequest): Promise<{ redirectUrl: string }>;
  /**
   * What the processor knows of the reference; `pending` for one it has never seen. `amountCents`
   * is the payment's: a processor that reports the amount (the gateway) approves nothing taken for
   * another amount or currency (it is voided and reported declined).
   */
  outcome(reference: string, amountCents: number): Promise<ProcessorOutcome>;
  /**
   * Closes an unfinished session (its checkout expired at `expiredAt`); a finished one keeps its
   * outcome (read as `outcome` reads it). `pending` while the processor's page may still take the
   * card (the gateway's session can outlive the checkout a little), so a payment made there is not
   * lost: asked again later.
   */
  cancel(reference: string, expiredAt: Date, amountCents: number): Promise<ProcessorOutcome>;
  /**
   * Releases an approval the service will not keep (the merchant was suspended while the customer
   * paid), so the card is not charged; an unfinished session is closed. Harmless when repeated.
   */
  voidApproval(reference: string): Promise<void>;
  /**
   * Keeps the card of an approved session (the customer agreed) for charges without the customer.
   * One token per reference: a repeated call returns the same one.
   */
  saveCard(approvedReference: string): Promise<SaveOutcome>;
  /**
   * Charges a kept card: declined at once when the processor can tell (the card has expired, the
   * token is gone), else usually pending while the bank decides. One charge per reference: a
   * repeated call makes none and reports where the first stands, so it is also how to ask. Many
   * charges are asked for side by side (invoices renewed at one instant): their outcomes, in order.
   */
  chargeSaved(charges: readonly SavedCardCharge[]): Promise<ProcessorOutcome[]>;
  /** Releases a charge the service will not keep (see voidApproval); harmless when repeated. */
  voidCharge(reference: string): Promise<void>;
  /** Forgets the token: nothing is charged to it again. Harmless when repeated. */
  deleteCard(token: string): Promise<void>;
  /**
   * Asks for refunds; one per reference: a repeated call makes none and reports where the first
   * stands. Many are asked for side by side (those requested together): their outcomes, in order.
   */
  refund(requests: readonly RefundRequest[]): Promise<RefundOutcome[]>;
  /**
   * Where these refunds (asked for with `refund` before) stand, in order. A processor that can miss
   * a request (the gateway, when it did not answer) and has none by a refund's reference is asked
   * for it now, so no refund is left undone; the sandbox, which misses none, reports it `pending`.
   */
  refundOutcome(requests: readonly RefundRequest[]): Promise<RefundOutcome[]>;
}
