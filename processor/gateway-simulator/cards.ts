// The gateway's test rules, as its test profiles apply them (DESIGN.md "Live card processor"):
// the card's expiry decides the acquirer's answer, the security code decides the CSC check.
import type { CardScheme } from '../../domain/card';
import { expiryKey } from '../sandbox/cards';

/** The `response.gatewayCode` values the simulator answers with. */
export type GatewayCode = 'APPROVED' | 'DECLINED' | 'DECLINED_CSC' | 'EXPIRED_CARD' | 'TIMED_OUT' | 'ACQUIRER_SYSTEM_ERROR' | 'UNSPECIFIED_FAILURE' | 'UNKNOWN';

/** The seven expiries of the test rules; UNKNOWN (05/37) turns approved once read 10 s later. */
export const EXPIRY_OUTCOMES: Readonly<Record<string, GatewayCode>> = {
  '01/39': 'APPROVED',
  '05/39': 'DECLINED',
  '04/27': 'EXPIRED_CARD',
  '08/28': 'TIMED_OUT',
  '01/37': 'ACQUIRER_SYSTEM_ERROR',
  '02/37': 'UNSPECIFIED_FAILURE',
  '05/37': 'UNKNOWN',
};

/** How long an UNKNOWN payment stays unknown: read this long after, it is decided. */
export const UNKNOWN_FOR_MS = 10_000;

/** The acquirer's answer for a card of this expiry: the table, else an expiry already past is an expired card, else approved. */
export function expiryOutcome(month: number, year: number, now: Date): GatewayCode {
  const listed = EXPIRY_OUTCOMES[expiryKey(month, year)];
  if (listed !== undefined) return listed;
  return Date.UTC(year, month, 1) <= now.getTime() ? 'EXPIRED_CARD' : 'APPROVED';
}

export type CscResult = 'MATCH' | 'NOT_PROCESSED' | 'NO_MATCH';

/** 100 match, 101 not processed, 102 no match (American Express: 1000, 1010, 1020); anything else is not a test code. */
export function cscResult(scheme: CardScheme, csc: string): CscResult | null {
  const codes: Record<string, CscResult> = scheme === 'amex' ? { '1000': 'MATCH', '1010': 'NOT_PROCESSED', '1020': 'NO_MATCH' } : { '100': 'MATCH', '101': 'NOT_PROCESSED', '102': 'NO_MATCH' };
  return codes[csc.trim()] ?? null;
}

/** A payment's answer from the expiry's and the security code's: a code that does not match refuses what the acquirer approved. */
export function paymentCode(expiry: GatewayCode, csc: CscResult | null): GatewayCode {
  return expiry === 'APPROVED' && csc === 'NO_MATCH' ? 'DECLINED_CSC' : expiry;
}
