// Object id generation (the scheme is described in domain/ids.ts): Node's random source, so not in
// domain/, which workflow code imports.
import { randomFillSync } from 'node:crypto';
import { addToTail, CHUNK_SPACE, ID_PREFIXES, type IdKind } from '../domain/ids';

const TIME_SPACE = 36 ** 9;
const CHUNK_BYTES = 6;

// Random bytes drawn a page at a time: a small randomBytes() is a system call each (10 µs here).
const pool = Buffer.alloc(4096);
let used = pool.length;

function randomFrom(bytes: number): number {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += bytes;
  return used - bytes;
}

/** `bytes` random bytes as lower-case hex, from the pool (for trace ids and the like). */
export function randomHex(bytes: number): string {
  const at = randomFrom(bytes);
  return pool.toString('hex', at, at + bytes);
}

let lastMillis = -1;
let lastTail = [0, 0, 0];

function randomTail(): number[] {
  // 48 random bits per chunk, reduced into its range (the bias, 2^-22, is negligible for ids).
  return [0, 0, 0].map(() => pool.readUIntBE(randomFrom(CHUNK_BYTES), CHUNK_BYTES) % CHUNK_SPACE);
}

/** A random step of at least 1 and below 36^10, in the tail's two low chunks. */
function randomStep(): number[] {
  const [, high, low] = randomTail();
  return high === 0 && low === 0 ? [0, 0, 1] : [0, high!, low!];
}

const base36 = (value: number, width: number) => value.toString(36).padStart(width, '0');

/**
 * A time this far behind the last id's is another timeline, not the clock stepping back: a test
 * clock runs months ahead of the service, and objects of each carry their own time in their ids
 * (one of the service's made after a clock's must not take the clock's time, nor sort after it).
 */
const OTHER_TIMELINE_MS = 60_000;

/** A new id for an object of this kind, created at `nowMillis`. */
export function newId(kind: IdKind, nowMillis: number = Date.now()): string {
  let tail: number[] | undefined;
  if (nowMillis <= lastMillis && nowMillis > lastMillis - OTHER_TIMELINE_MS) {
    // Same (or an earlier, clock stepped back) millisecond: keep increasing from the last id; a
    // tail that would overflow moves on to the next millisecond instead (about once in 2^26 ids).
    nowMillis = lastMillis;
    tail = addToTail(lastTail, randomStep());
    if (tail === undefined) nowMillis += 1;
  }
  tail ??= randomTail();
  lastMillis = nowMillis;
  lastTail = tail;
  return `${ID_PREFIXES[kind]}_${base36(nowMillis % TIME_SPACE, 9)}${tail.map((chunk) => base36(chunk, 5)).join('')}`;
}
