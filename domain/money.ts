// Money is integer cents of LKR everywhere; never a float.
export const CURRENCY = 'LKR';

/** Postgres bigint columns arrive as strings; amounts are safe integers by construction. */
export function centsFromDb(value: string | number): number {
  const cents = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(cents)) throw new Error(`not an amount of cents: ${value}`);
  return cents;
}

/** Rs. 3,500.00 for 350000 cents. */
export function formatRupees(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const rupees = Math.floor(abs / 100).toLocaleString('en-US');
  return `${sign}Rs. ${rupees}.${String(abs % 100).padStart(2, '0')}`;
}

/** "3500.00" for 350000 cents: the decimal amount card processors' APIs take. */
export function decimalAmount(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new Error(`not an amount of cents: ${cents}`);
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** 350000 for "3500.00" (or 3500, "3500.5"): a processor's decimal amount back in cents. */
export function centsFromDecimal(amount: string | number): number {
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(String(amount));
  if (!match) throw new Error(`not a decimal amount: ${amount}`);
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}
