// The sandbox's test cards and its rules: only these numbers are accepted; the CVV is 100 (1000
// for American Express); the expiry decides the outcome (docs/checkouts.md lists them all).
import type { CardScheme } from '../../domain/card';
import type { DeclineCode } from '../port';

export const TEST_CARDS: readonly { number: string; scheme: CardScheme }[] = [
  { number: '5123450000000008', scheme: 'mastercard' },
  { number: '2223000048400011', scheme: 'mastercard' },
  { number: '4111111111111111', scheme: 'visa' },
  { number: '4012888888881881', scheme: 'visa' },
  { number: '378282246310005', scheme: 'amex' },
  { number: '371449635398431', scheme: 'amex' },
  { number: '36227206271667', scheme: 'diners' },
  { number: '30569309025904', scheme: 'diners' },
  { number: '6011111111111117', scheme: 'discover' },
  { number: '6011000990139424', scheme: 'discover' },
];

export function expectedCvv(scheme: CardScheme): string {
  return scheme === 'amex' ? '1000' : '100';
}

export const DECLINE_MESSAGES: Record<DeclineCode, string> = {
  card_declined: 'The card was declined by its bank.',
  expired_card: 'The card has expired.',
  insufficient_funds: 'The card has insufficient funds.',
  authentication_failed: '3-D Secure authentication failed.',
};

/**
 * The outcome an expiry decides, once 3-D Secure has passed: 01/39 approved, 05/39 declined,
 * 04/27 expired card, 06/39 insufficient funds; any other expiry already past is an expired card,
 * any other future one is approved.
 */
export function outcomeForExpiry(month: number, year: number, now: Date): DeclineCode | 'approved' {
  const key = `${String(month).padStart(2, '0')}/${String(year % 100).padStart(2, '0')}`;
  if (key === '01/39') return 'approved';
  if (key === '05/39') return 'card_declined';
  if (key === '04/27') return 'expired_card';
  if (key === '06/39') return 'insufficient_funds';
  // A card is valid to the end of its expiry month.
  const endOfMonth = Date.UTC(year, month, 1);
  return endOfMonth <= now.getTime() ? 'expired_card' : 'approved';
}
