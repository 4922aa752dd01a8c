// How the gateway's answers read in the port's terms (DESIGN.md "Live card processor"). Pure:
// the adapter hands in what RETRIEVE_ORDER or a transaction's answer said.
import type { CardScheme } from '../../domain/card';
import { centsFromDecimal, CURRENCY } from '../../domain/money';
import type { DeclineCode, ProcessorOutcome, ReportedCard } from '../port';

/** The fields of the gateway's order and transaction answers the adapter reads (version 100). */
export interface GatewayCard {
  brand?: string;
  scheme?: string;
  number?: string;
  expiry?: { month?: string; year?: string };
}

export interface GatewayTransaction {
  result?: string;
  response?: { gatewayCode?: string; cardSecurityCode?: { gatewayCode?: string } };
  transaction?: { id?: string; type?: string; amount?: number | string };
  order?: GatewayOrder;
  timeOfRecord?: string;
  sourceOfFunds?: { provided?: { card?: GatewayCard } };
}

export interface GatewayOrder {
  id?: string;
  status?: string;
  result?: string;
  amount?: number | string;
  currency?: string;
  totalCapturedAmount?: number | string;
  totalRefundedAmount?: number | string;
  sourceOfFunds?: { token?: string; provided?: { card?: GatewayCard } };
  agreement?: { id?: string };
  transaction?: GatewayTransaction[];
}

/**
 * The gateway's `response.gatewayCode` of a payment, as Kasi tells it. Mapping (DESIGN.md):
 * - APPROVED (and APPROVED_AUTO, APPROVED_PENDING_SETTLEMENT) → approved;
 * - EXPIRED_CARD → `expired_card`; INSUFFICIENT_FUNDS → `insufficient_funds`;
 * - AUTHENTICATION_FAILED (3-D Secure refused) → `authentication_failed`;
 * - DECLINED, DECLINED_CSC (a security code that does not match), TIMED_OUT (the gateway reverses
 *   it), ACQUIRER_SYSTEM_ERROR, UNSPECIFIED_FAILURE and every other refusal → `card_declined`, each
 *   with its own message;
 * - UNKNOWN, PENDING, SUBMITTED, or a code not listed on a transaction not failed → pending: the
 *   service asks again until the gateway knows.
 */
const DECLINES: Record<string, { code: DeclineCode; message: string }> = {
  DECLINED: { code: 'card_declined', message: 'The card was declined by its bank.' },
  DECLINED_CSC: { code: 'card_declined', message: 'The card\'s security code (CVV) does not match.' },
  EXPIRED_CARD: { code: 'expired_card', message: 'The card has expired.' },
  INSUFFICIENT_FUNDS: { code: 'insufficient_funds', message: 'The card has insufficient funds.' },
  TIMED_OUT: { code: 'card_declined', message: 'The card\'s bank did not answer in time; the payment was reversed.' },
  ACQUIRER_SYSTEM_ERROR: { code: 'card_declined', message: 'The bank\'s system failed; nothing was charged.' },
  UNSPECIFIED_FAILURE: { code: 'card_declined', message: 'The payment could not be processed; nothing was charged.' },
  AUTHENTICATION_FAILED: { code: 'authentication_failed', message: '3-D Secure authentication failed.' },
};
const OTHER_DECLINE = { code: 'card_declined' as const, message: 'The card was declined by its bank.' };
const APPROVED = new Set(['APPROVED', 'APPROVED_AUTO', 'APPROVED_PENDING_SETTLEMENT']);
const PAYMENT_TYPES = new Set(['PAYMENT', 'AUTHORIZATION', 'CAPTURE']);

const SCHEMES: Record<string, CardScheme> = {
  MASTERCARD: 'mastercard',
  VISA: 'visa',
  AMEX: 'amex',
  DINERS_CLUB: 'diners',
  DISCOVER: 'discover',
};

/**
 * The card as the gateway shows it (masked number, expiry month and two-digit year). `token` is
 * the gateway's token when the card is kept, else the order's id: a hosted payment's card has no
 * reusable token until `saveCard` makes one.
 */
export function reportedCard(card: GatewayCard | undefined, token: string): ReportedCard | null {
  const scheme = SCHEMES[(card?.brand ?? card?.scheme ?? '').toUpperCase()];
  const month = Number(card?.expiry?.month);
  const year = Number(card?.expiry?.year);
  if (scheme === undefined || !card?.number || !(month >= 1 && month <= 12) || !(year >= 0)) return null;
  return { scheme, last4: card.number.slice(-4), expiryMonth: month, expiryYear: year < 100 ? 2000 + year : year, token };
}

/** A payment transaction's outcome from its `result` and `response.gatewayCode`. */
export function paymentOutcome(transaction: GatewayTransaction, card: ReportedCard | null): ProcessorOutcome {
  const code = transaction.response?.gatewayCode ?? '';
  if (approved(transaction)) {
    return card === null ? { status: 'pending' } : { status: 'approved', card };
  }
  const decline = DECLINES[code] ?? (transaction.result === 'FAILURE' ? OTHER_DECLINE : undefined);
  if (decline === undefined) return { status: 'pending' };
  return { status: 'declined', code: decline.code, message: decline.message, card };
}

/** The gateway approved the transaction (whatever Kasi makes of it). */
export function approved(transaction: GatewayTransaction): boolean {
  return APPROVED.has(transaction.response?.gatewayCode ?? '') && transaction.result === 'SUCCESS';
}

/** The order's payment (its last payment transaction), if it has one. */
export function paymentOf(order: GatewayOrder): GatewayTransaction | undefined {
  return (order.transaction ?? []).filter((t) => PAYMENT_TYPES.has(t.transaction?.type ?? '')).at(-1);
}

/**
 * The token Kasi keeps for a saved card: the gateway's token and the stored-credential
 * agreement it is charged under (the first payment's reference), so a charge names both.
 */
export function keptToken(gatewayToken: string, agreementId: string): string {
  return `${gatewayToken}:${agreementId}`;
}

export function splitToken(token: string): { gatewayToken: string; agreementId: string | null } {
  const at = token.indexOf(':');
  return at < 0 ? { gatewayToken: token, agreementId: null } : { gatewayToken: token.slice(0, at), agreementId: token.slice(at + 1) };
}

/**
 * The order is for what Kasi asked: `amountCents` in LKR, by the order's amount and currency and
 * its payment's. An order that does not say is not taken as one.
 */
export function orderIsFor(order: GatewayOrder, amountCents: number): boolean {
  const payment = paymentOf(order)?.transaction;
  return order.currency === CURRENCY && gatewayCents(order.amount) === amountCents && (payment?.amount === undefined || gatewayCents(payment.amount) === amountCents);
}

/** A decimal amount the gateway reported, in cents; null when it is none. */
export function gatewayCents(amount: number | string | undefined): number | null {
  try {
    return amount === undefined ? null : centsFromDecimal(amount);
  } catch {
    return null;
  }
}

/** The outcome RETRIEVE_ORDER tells: never the browser's word. */
export function orderOutcome(order: GatewayOrder): ProcessorOutcome {
  const { token } = order.sourceOfFunds ?? {};
  const agreementId = order.agreement?.id;
  const card = reportedCard(order.sourceOfFunds?.provided?.card, token && agreementId ? keptToken(token, agreementId) : (order.id ?? ''));
  if (order.status === 'CANCELLED') return { status: 'canceled' };
  if (order.status === 'AUTHENTICATION_UNSUCCESSFUL') {
    const decline = DECLINES.AUTHENTICATION_FAILED!;
    return { status: 'declined', code: decline.code, message: decline.message, card };
  }
  const payment = paymentOf(order);
  return payment === undefined ? { status: 'pending' } : paymentOutcome(payment, card);
}
