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

// The last tail of each millisecond ids were made at lately, least recently used first: a time is
// used again out of order (a test clock's, or an event dated at its invoice's creation).
const lastTails = new Map<number, number[]>();
const REMEMBERED_MILLIS = 4096;

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
 * A new id for an object of this kind, created at `nowMillis`. The id carries that time, whatever
 * was made before it: a list ordered by id is then ordered by the time it shows, also when an object
 * is dated earlier than one made before it (a test clock's time, an event dated at its invoice's
 * creation). Ids made at one millisecond increase in the order they are made (while this process
 * remembers the millisecond, which it does for its last 4,096).
 */
export function newId(kind: IdKind, nowMillis: number = Date.now()): string {
  const last = lastTails.get(nowMillis);
  const tail = last === undefined ? randomTail() : addToTail(last, randomStep());
  if (tail === undefined) {
    // The millisecond's tail would overflow (about once in 2^26 ids): the next millisecond's.
    return newId(kind, nowMillis + 1);
  }
  lastTails.delete(nowMillis);
  lastTails.set(nowMillis, tail);
  if (lastTails.size > REMEMBERED_MILLIS) lastTails.delete(lastTails.keys().next().value!);
  return `${ID_PREFIXES[kind]}_${base36(nowMillis % TIME_SPACE, 9)}${tail.map((chunk) => base36(chunk, 5)).join('')}`;
}
