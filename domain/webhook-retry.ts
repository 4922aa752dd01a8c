// The webhook retry ladder: after a failed attempt, the next comes 1, 5 and 30 minutes later,
// then 2, 6 and 12 hours later; after the seventh attempt fails the delivery is failed.
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const WEBHOOK_RETRY_DELAYS_MS = [1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 6 * HOUR, 12 * HOUR] as const;
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1;

/** The wait after attempt number `attemptsMade` (1-based) failed, or null when it was the last. */
export function delayAfterAttempt(attemptsMade: number): number | null {
  return WEBHOOK_RETRY_DELAYS_MS[attemptsMade - 1] ?? null;
}
