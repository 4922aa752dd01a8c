// Card numbers: the Luhn check, the scheme from the number's leading digits, and the hosted
// pages' guard against card numbers typed into the service's own fields.

export type CardScheme = 'visa' | 'mastercard' | 'amex' | 'diners' | 'discover';

export const SCHEME_NAMES: Record<CardScheme, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  diners: 'Diners Club',
  discover: 'Discover',
};

export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The scheme of a card number by its issuer prefix and length, or null when none matches. */
export function cardScheme(digits: string): CardScheme | null {
  const n = digits.length;
  const prefix = (k: number) => Number(digits.slice(0, k));
  if (/^4/.test(digits) && (n === 13 || n === 16 || n === 19)) return 'visa';
  if (n === 16 && ((prefix(2) >= 51 && prefix(2) <= 55) || (prefix(4) >= 2221 && prefix(4) <= 2720))) return 'mastercard';
  if (n === 15 && /^3[47]/.test(digits)) return 'amex';
  if (n >= 14 && n <= 19 && (/^3(0[0-5]|[689])/.test(digits))) return 'diners';
  if (n >= 16 && n <= 19 && (/^(6011|64[4-9]|65)/.test(digits) || (prefix(6) >= 622126 && prefix(6) <= 622925))) return 'discover';
  return null;
}

/**
 * True when the text holds something that looks like a card number: 13 to 19 digits (spaces and
 * dashes between them allowed) passing the Luhn check. Such text is refused, never stored.
 */
export function looksLikeCardNumber(text: string): boolean {
  for (const run of text.match(/\d[\d -]*\d/g) ?? []) {
    const digits = run.replace(/[ -]/g, '');
    if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits)) return true;
  }
  return false;
}
