// Time for the whole service comes from a Clock, so tests can move it (idempotency expiry,
// month boundaries) without waiting.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until a test moves it. */
export class ManualClock implements Clock {
  private millis: number;
  constructor(start: Date | number = Date.now()) {
    this.millis = typeof start === 'number' ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.millis);
  }
  advance(ms: number): void {
    this.millis += ms;
  }
  set(at: Date): void {
    this.millis = at.getTime();
  }
}
