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

interface QueuedEntry extends ClockTimer {
  readonly seq: number;
  readonly target: Fireable;
  /** Where the entry sits in the heap; -1 once fired or cancelled. */
  index: number;
}

/**
 * Scheduled callbacks in one binary heap, earliest (then first scheduled) on top: both clocks keep
 * theirs here, so both fire in the same order.
 */
class TimerQueue {
  private readonly heap: QueuedEntry[] = [];
  private seq = 0;

  add(dueAt: number, target: Fireable): ClockTimer {
    // A NaN would sit on top of the heap, never due, and hold back every other callback.
    if (Number.isNaN(dueAt)) throw new RangeError('a clock callback needs a due time, got NaN');
    const entry: QueuedEntry = { dueAt, seq: this.seq++, target, index: this.heap.length };
    this.heap.push(entry);
    this.up(entry);
    return entry;
  }

  /** Takes a callback out; one that already fired or was cancelled is left alone. */
  cancel(timer: ClockTimer): void {
    const entry = timer as QueuedEntry;
    if (entry.index >= 0) this.remove(entry);
  }

  clear(): void {
    for (const entry of this.heap) entry.index = -1;
    this.heap.length = 0;
  }

  /** When the earliest callback is due, or undefined when none is scheduled. */
  nextDueAt(): number | undefined {
    return this.heap[0]?.dueAt;
  }

  /**
   * Fires, earliest first, what is due by `now`. A callback scheduled by one of them waits for the
   * next call even when already due, as it would with its own Node timer (so a loop of zero delays
   * cannot starve the event loop); one cancelled by an earlier one does not fire.
   */
  fireDue(now: number): void {
    const before = this.seq;
    for (let top = this.heap[0]; top !== undefined && top.dueAt <= now && top.seq < before; top = this.heap[0]) {
      this.remove(top);
      top.target.fire();
    }
  }

  private remove(entry: QueuedEntry): void {
    const last = this.heap.pop()!;
    if (last !== entry) {
      this.place(last, entry.index);
      this.up(last);
      this.down(last);
    }
    entry.index = -1;
  }

  private place(entry: QueuedEntry, index: number): void {
    this.heap[index] = entry;
    entry.index = index;
  }

  private up(entry: QueuedEntry): void {
    while (entry.index > 0) {
      const parent = this.heap[(entry.index - 1) >> 1]!;
      if (!earlier(entry, parent)) return;
      const at = parent.index;
      this.place(parent, entry.index);
      this.place(entry, at);
    }
  }

  private down(entry: QueuedEntry): void {
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

function earlier(a: QueuedEntry, b: QueuedEntry): boolean {
  return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.seq < b.seq);
}

/**
 * A clock that moves only when told to. Callbacks due at the same instant fire in the order they
 * were scheduled, which keeps runs reproducible.
 */
export class VirtualClock implements Clock {
  readonly kind = 'virtual';
  private current: number;
  private readonly queue = new TimerQueue();

  constructor(startAt = Date.UTC(2025, 0, 1)) {
    this.current = startAt;
  }

  now(): number {
    return this.current;
  }

  schedule(dueAt: number, target: Fireable): ClockTimer {
    return this.queue.add(Math.max(dueAt, this.current), target);
  }

  cancel(timer: ClockTimer): void {
    this.queue.cancel(timer);
  }

  clear(): void {
    this.queue.clear();
  }

  /** When the next callback is due, or undefined when nothing is scheduled. */
  nextDueAt(): number | undefined {
    return this.queue.nextDueAt();
  }

  /** Moves to `at` (never backwards) and fires every callback due by then, earliest first. */
  moveTo(at: number): void {
    this.current = Math.max(this.current, at);
    this.queue.fireDue(this.current);
  }
}

// setTimeout keeps 32-bit delays; a 30-day dunning step is longer, so long waits are re-armed.
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * The wall clock: its callbacks wait in the queue, with one Node timer armed for the earliest. A
 * Node timer per callback would give every sleeping workflow (each open checkout has its 30-minute
 * timer) a Timeout, a closure and its scope, and boxed numbers, all traced by every major garbage
 * collection.
 */
export class RealClock implements Clock {
  readonly kind = 'real';
  private readonly queue = new TimerQueue();
  private handle?: NodeJS.Timeout;
  /** The due time the Node timer is armed for (Infinity: not armed). */
  private armedFor = Infinity;

  now(): number {
    return Date.now();
  }

  schedule(dueAt: number, target: Fireable): ClockTimer {
    const timer = this.queue.add(dueAt, target);
    this.arm();
    return timer;
  }

  cancel(timer: ClockTimer): void {
    this.queue.cancel(timer);
    this.arm();
  }

  clear(): void {
    this.queue.clear();
    this.arm();
  }

  private arm(): void {
    const dueAt = this.queue.nextDueAt() ?? Infinity;
    if (dueAt === this.armedFor) return;
    clearTimeout(this.handle);
    this.handle = undefined;
    this.armedFor = dueAt;
    if (dueAt === Infinity) return;
    this.handle = setTimeout(() => this.fireDue(), Math.min(Math.max(dueAt - Date.now(), 0), MAX_TIMEOUT_MS));
  }

  private fireDue(): void {
    this.handle = undefined;
    this.armedFor = Infinity;
    try {
      this.queue.fireDue(Date.now());
    } finally {
      this.arm();
    }
  }
}
