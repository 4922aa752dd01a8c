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

export interface CardProcessor {
  openSession(request: SessionRequest): Promise<{ redirectUrl: string }>;
  /** What the processor knows of the reference; `pending` for one it has never seen. */
  outcome(reference: string): Promise<ProcessorOutcome>;
  /** Closes an unfinished session (its checkout expired); a finished one keeps its outcome. */
  cancel(reference: string): Promise<ProcessorOutcome>;
  /**
   * Releases an approval the service will not keep (the merchant was suspended while the customer
   * paid), so the card is not charged; an unfinished session is closed. Harmless when repeated.
   */
  voidApproval(reference: string): Promise<void>;
}
