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
