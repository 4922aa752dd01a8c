// The server's side of an activity's retry policy: whether a failed attempt is tried again and
// after how long. Defaults are the server's (1 s, x2, at most 100 x the initial interval).
import type { temporal } from '@temporalio/proto';

type RetryPolicy = temporal.api.common.v1.IRetryPolicy;
import { tsMs } from './proto';
import type { FailureObject } from './proto';

type Failure = FailureObject;

export type RetryDecision =
  | { retry: true; delayMs: number }
  | { retry: false; retryState: 'NON_RETRYABLE_FAILURE' | 'MAXIMUM_ATTEMPTS_REACHED' | 'TIMEOUT' };

export function decideRetry(
  policy: RetryPolicy | null | undefined,
  failure: Failure,
  attempt: number,
  now: number,
  scheduleToCloseDeadline: number | undefined,
): RetryDecision {
  const app = failure.applicationFailureInfo;
  if (app?.nonRetryable) return { retry: false, retryState: 'NON_RETRYABLE_FAILURE' };
  const type = app?.type;
  if (type && policy?.nonRetryableErrorTypes?.includes(type)) return { retry: false, retryState: 'NON_RETRYABLE_FAILURE' };
  const maximumAttempts = policy?.maximumAttempts ?? 0;
  if (maximumAttempts > 0 && attempt >= maximumAttempts) return { retry: false, retryState: 'MAXIMUM_ATTEMPTS_REACHED' };
  const delayMs = tsMs(app?.nextRetryDelay) ?? backoffMs(policy, attempt);
  if (scheduleToCloseDeadline !== undefined && now + delayMs >= scheduleToCloseDeadline) {
    return { retry: false, retryState: 'TIMEOUT' };
  }
  return { retry: true, delayMs };
}

/** Delay before attempt `attempt + 1`. */
export function backoffMs(policy: RetryPolicy | null | undefined, attempt: number): number {
  const initial = tsMs(policy?.initialInterval) || 1_000;
  const coefficient = policy?.backoffCoefficient || 2;
  const maximum = tsMs(policy?.maximumInterval) || initial * 100;
  return Math.min(initial * coefficient ** (attempt - 1), maximum);
}
