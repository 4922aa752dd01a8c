// Time for the embedded engine: every workflow timer, activity backoff and activity timeout goes
// through one Clock, so tests can swap the wall clock for a virtual one and skip days at once.

export interface ClockTimer {
  readonly dueAt: number;
}

export interface Clock {
  readonly kind: 'real' | 'virtual';
  now(): number;
  /** Runs `fire` once the clock reaches `dueAt` (epoch ms). */
  schedule(dueAt: number, fire: () => void): ClockTimer;
  cancel(timer: ClockTimer): void;
  /** Drops every scheduled callback (engine shutdown). */
  clear(): void;
}

interface VirtualEntry extends ClockTimer {
  readonly seq: number;
  readonly fire: () => void;
}

/**
 * A clock that moves only when told to. Callbacks due at the same instant fire in the order they
 * were scheduled, which keeps runs reproducible.
 */
export class VirtualClock implements Clock {
  readonly kind = 'virtual';
  private current: number;
  private seq = 0;
  private readonly pending = new Set<VirtualEntry>();

  constructor(startAt = Date.UTC(2025, 0, 1)) {
    this.current = startAt;
  }

  now(): number {
    return this.current;
  }

  schedule(dueAt: number, fire: () => void): ClockTimer {
    const entry: VirtualEntry = { dueAt: Math.max(dueAt, this.current), seq: this.seq++, fire };
    this.pending.add(entry);
    return entry;
  }

  cancel(timer: ClockTimer): void {
    this.pending.delete(timer as VirtualEntry);
  }

  clear(): void {
    this.pending.clear();
  }

  /** When the next callback is due, or undefined when nothing is scheduled. */
  nextDueAt(): number | undefined {
    let next: number | undefined;
    for (const entry of this.pending) if (next === undefined || entry.dueAt < next) next = entry.dueAt;
    return next;
  }

  /** Moves to `at` (never backwards) and fires every callback due by then, earliest first. */
  moveTo(at: number): void {
    this.current = Math.max(this.current, at);
    const due = [...this.pending].filter((entry) => entry.dueAt <= this.current);
    due.sort((a, b) => a.dueAt - b.dueAt || a.seq - b.seq);
    for (const entry of due) {
      this.pending.delete(entry);
      entry.fire();
    }
  }
}

// setTimeout keeps 32-bit delays; a 30-day dunning step is longer, so long waits are re-armed.
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

interface RealEntry extends ClockTimer {
  handle?: NodeJS.Timeout;
}

export class RealClock implements Clock {
  readonly kind = 'real';
  private readonly pending = new Set<RealEntry>();

  now(): number {
    return Date.now();
  }

  schedule(dueAt: number, fire: () => void): ClockTimer {
    const entry: RealEntry = { dueAt };
    const arm = (): void => {
      const delay = dueAt - Date.now();
      if (delay <= 0) {
        this.pending.delete(entry);
        fire();
        return;
      }
      entry.handle = setTimeout(arm, Math.min(delay, MAX_TIMEOUT_MS));
    };
    this.pending.add(entry);
    entry.handle = setTimeout(arm, Math.min(Math.max(dueAt - Date.now(), 0), MAX_TIMEOUT_MS));
    return entry;
  }

  cancel(timer: ClockTimer): void {
    const entry = timer as RealEntry;
    clearTimeout(entry.handle);
    this.pending.delete(entry);
  }

  clear(): void {
    for (const entry of this.pending) clearTimeout(entry.handle);
    this.pending.clear();
  }
}
