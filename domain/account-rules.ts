// Rules of a merchant account that every way of making or changing one applies (the CLI now, the
// dashboard later), and the account-status rules every way of taking a payment applies.
import { ApiError } from './errors';

/** A business name as shown on hosted pages, receipts and invoices: 1 to 120 characters. */
export const ACCOUNT_NAME_MAX_LENGTH = 120;

/** The name as kept (trimmed), or why it cannot be. */
export function accountNameProblem(raw: string): string | null {
  const name = raw.trim();
  if (name.length === 0) return 'must not be empty';
  if ([...name].length > ACCOUNT_NAME_MAX_LENGTH) return `must be at most ${ACCOUNT_NAME_MAX_LENGTH} characters`;
  return null;
}

/** What the account-status rules read of an account. */
export interface AccountStanding {
  status: 'not_activated' | 'active' | 'suspended';
  liveActivatedAt: Date | null;
}

/** Live payments are open once the account is activated and while it stays active. */
export function livePaymentsOpen(account: AccountStanding): boolean {
  return account.status === 'active' && account.liveActivatedAt !== null;
}

/**
 * Why the account may not take a payment or make a change in this mode, or null when it may: the
 * one rule the API's writes, the hosted pages and a payment's settlement all apply.
 */
export function accountRefusal(account: AccountStanding, mode: 'test' | 'live'): ApiError | null {
  if (account.status === 'suspended') {
    return new ApiError('merchant_unavailable', 'This account is suspended and cannot take payments or make changes.');
  }
  if (mode === 'live' && !livePaymentsOpen(account)) {
    return new ApiError('merchant_not_live', 'Live requests are accepted once the account is approved and activated. Use a test key until then.');
  }
  return null;
}
