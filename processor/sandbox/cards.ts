// The sandbox's test cards and its rules: only these numbers are accepted; the CVV is 100 (1000
// for American Express); the expiry decides the outcome (docs/reference/checkouts.md lists them all).
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

/** `MM/YY`, as the test card tables (and the sandbox page's list of test cards) write an expiry. */
export function expiryKey(month: number, year: number): string {
  return `${String(month).padStart(2, '0')}/${String(year % 100).padStart(2, '0')}`;
}

/** A card is valid to the end of its expiry month. */
function expiredBy(month: number, year: number, now: Date): boolean {
  return Date.UTC(year, month, 1) <= now.getTime();
}

/**
 * The outcome an expiry decides when the customer pays on a hosted page, once 3-D Secure has
 * passed: 01/39 approved, 05/39 declined, 04/27 expired card, 06/39 insufficient funds, 07/39 and
 * 08/39 approved (they differ later: see below); any other expiry already past is an expired
 * card, any other future one is approved.
 */
export function outcomeForExpiry(month: number, year: number, now: Date): DeclineCode | 'approved' {
  const key = expiryKey(month, year);
  if (key === '01/39' || key === '07/39' || key === '08/39') return 'approved';
  if (key === '05/39') return 'card_declined';
  if (key === '04/27') return 'expired_card';
  if (key === '06/39') return 'insufficient_funds';
  return expiredBy(month, year, now) ? 'expired_card' : 'approved';
}

/** 08/39: approved, but the sandbox will not keep it for later charges (card.save_failed). */
export function keepsCard(month: number, year: number): boolean {
  return expiryKey(month, year) !== '08/39';
}

/**
 * A merchant-initiated charge of a kept card (the customer not present): as on the page, except
 * that 07/39 is declined (card_declined) every time (DESIGN.md). `atOnce` when the processor
 * refuses without asking the bank: the card has expired since it was kept.
 */
export function merchantInitiatedOutcome(month: number, year: number, now: Date): { outcome: DeclineCode | 'approved'; atOnce: boolean } {
  if (expiredBy(month, year, now)) return { outcome: 'expired_card', atOnce: true };
  return { outcome: expiryKey(month, year) === '07/39' ? 'card_declined' : outcomeForExpiry(month, year, now), atOnce: false };
}
