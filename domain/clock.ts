// Time for the whole service comes from a Clock, so tests can move it (idempotency expiry,
// month boundaries) without waiting.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
