// Rules of a merchant account that every way of making or changing one applies (the CLI now, the
// dashboard later).

/** A business name as shown on hosted pages, receipts and invoices: 1 to 120 characters. */
export const ACCOUNT_NAME_MAX_LENGTH = 120;

/** The name as kept (trimmed), or why it cannot be. */
export function accountNameProblem(raw: string): string | null {
  const name = raw.trim();
  if (name.length === 0) return 'must not be empty';
  if ([...name].length > ACCOUNT_NAME_MAX_LENGTH) return `must be at most ${ACCOUNT_NAME_MAX_LENGTH} characters`;
  return null;
}
