// Time for the embedded engine: every workflow timer, activity backoff and activity timeout goes
// through one Clock, so tests can swap the wall clock for a virtual one and skip days at once.

export interface ClockTimer {
  readonly dueAt: number;
}

/**
 * What a clock calls back. An object rather than a function, so a long-lived callback (a sleeping
 * workflow's timer) can be one object that also holds its own state, instead of a closure and the
 * scopes it keeps.
 */
export interface Fireable {
  fire(): void;
}

export interface Clock {
  readonly kind: 'real' | 'virtual';
  now(): number;
  /** Calls `target.fire()` once the clock reaches `dueAt` (epoch ms). */
  schedule(dueAt: number, target: Fireable): ClockTimer;
  cancel(timer: ClockTimer): void;
  /** Drops every scheduled callback (engine shutdown). */
  clear(): void;
}

interface VirtualEntry extends ClockTimer {
  readonly seq: number;
  readonly target: Fireable;
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

  schedule(dueAt: number, target: Fireable): ClockTimer {
    const entry: VirtualEntry = { dueAt: Math.max(dueAt, this.current), seq: this.seq++, target };
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
      entry.target.fire();
    }
  }
}

// setTimeout keeps 32-bit delays; a 30-day dunning step is longer, so long waits are re-armed.
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

interface RealEntry extends ClockTimer {
  readonly seq: number;
  readonly target: Fireable;
  /** Where the entry sits in the heap; -1 once fired or cancelled. */
  index: number;
}

/**
 * The wall clock. Its callbacks wait in one binary heap, earliest (then first scheduled) on top,
 * with one Node timer armed for the top: a Node timer per callback would give every sleeping
 * workflow (each open checkout has its 30-minute timer) a Timeout, a closure and its scope, and
 * boxed numbers, all traced by every major garbage collection.
 */
export class RealClock implements Clock {
  readonly kind = 'real';
  private readonly heap: RealEntry[] = [];
  private seq = 0;
  private handle?: NodeJS.Timeout;
  /** The due time the Node timer is armed for (Infinity: not armed). */
  private armedFor = Infinity;

  now(): number {
    return Date.now();
  }

  schedule(dueAt: number, target: Fireable): ClockTimer {
    // A NaN would sit on top of the heap, never due, and hold back every other callback.
    if (Number.isNaN(dueAt)) throw new RangeError('a clock callback needs a due time, got NaN');
    const entry: RealEntry = { dueAt, seq: this.seq++, target, index: this.heap.length };
    this.heap.push(entry);
    this.up(entry);
    this.arm();
    return entry;
  }

  cancel(timer: ClockTimer): void {
    const entry = timer as RealEntry;
    if (entry.index < 0) return;
    this.remove(entry);
    this.arm();
  }

  clear(): void {
    for (const entry of this.heap) entry.index = -1;
    this.heap.length = 0;
    this.arm();
  }

  private arm(): void {
    const dueAt = this.heap[0]?.dueAt ?? Infinity;
    if (dueAt === this.armedFor) return;
    clearTimeout(this.handle);
    this.handle = undefined;
    this.armedFor = dueAt;
    if (dueAt === Infinity) return;
    this.handle = setTimeout(() => this.fireDue(), Math.min(Math.max(dueAt - Date.now(), 0), MAX_TIMEOUT_MS));
  }

  /**
   * Fires what is due, in order. A callback scheduled by one of them fires on a later turn even
   * when already due, as it would with its own Node timer (so a loop of zero delays cannot starve
   * the event loop).
   */
  private fireDue(): void {
    this.handle = undefined;
    this.armedFor = Infinity;
    const now = Date.now();
    const before = this.seq;
    try {
      for (let top = this.heap[0]; top !== undefined && top.dueAt <= now && top.seq < before; top = this.heap[0]) {
        this.remove(top);
        top.target.fire();
      }
    } finally {
      this.arm();
    }
  }

  private remove(entry: RealEntry): void {
    const last = this.heap.pop()!;
    if (last !== entry) {
      this.place(last, entry.index);
      this.up(last);
      this.down(last);
    }
    entry.index = -1;
  }

  private place(entry: RealEntry, index: number): void {
    this.heap[index] = entry;
    entry.index = index;
  }

  private up(entry: RealEntry): void {
    while (entry.index > 0) {
      const parent = this.heap[(entry.index - 1) >> 1]!;
      if (!earlier(entry, parent)) return;
      const at = parent.index;
      this.place(parent, entry.index);
      this.place(entry, at);
    }
  }

  private down(entry: RealEntry): void {
    for (;;) {
      const left = 2 * entry.index + 1;
      let child = this.heap[left];
      const right = this.heap[left + 1];
      if (right !== undefined && earlier(right, child!)) child = right;
      if (child === undefined || !earlier(child, entry)) return;
      const at = child.index;
      this.place(child, entry.index);
      this.place(entry, at);
    }
  }
}

function earlier(a: RealEntry, b: RealEntry): boolean {
  return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.seq < b.seq);
}
