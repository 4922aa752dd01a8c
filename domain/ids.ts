// Object ids: a prefix plus 24 characters of [0-9a-z]. The first 9 characters are the creation
// millisecond in base 36, so ids sort by creation time and a list's cursor is simply the last id
// (keyset pagination). The 15-character tail is random (77 bits). An id made in the same
// millisecond as the previous one adds a random step of 1 to 36^10 (51 bits) to the previous tail,
// so ids made in one process stay strictly increasing and still no id can be guessed from a
// neighbour: the checkout URL is a hosted page's only credential.
import { randomFillSync } from 'node:crypto';

export const ID_PREFIXES = {
  account: 'acct',
  apiKey: 'key',
  checkout: 'chk',
  payment: 'pay',
  refund: 're',
  savedCard: 'card',
  event: 'evt',
  customer: 'cus',
  price: 'price',
  product: 'prod',
  subscription: 'sub',
  subscriptionItem: 'si',
  invoice: 'in',
  meter: 'mtr',
  webhookEndpoint: 'we',
  webhookDelivery: 'whd',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const TIME_SPACE = 36 ** 9;
/** The random tail's 15 characters, as three numbers of five base-36 digits (each below 2^26). */
const CHUNK_SPACE = 36 ** 5;
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

/**
 * `tail` plus `step` (both three base-36^5 chunks, the carry moving left); undefined when the sum
 * leaves the tail's range.
 */
export function addToTail(tail: readonly number[], step: readonly number[]): number[] | undefined {
  const sum = [...tail];
  let carry = 0;
  for (let i = sum.length - 1; i >= 0; i--) {
    const chunk = sum[i]! + step[i]! + carry;
    sum[i] = chunk % CHUNK_SPACE;
    carry = chunk >= CHUNK_SPACE ? 1 : 0;
  }
  return carry === 0 ? sum : undefined;
}

/** A random step of at least 1 and below 36^10, in the tail's two low chunks. */
function randomStep(): number[] {
  const [, high, low] = randomTail();
  return high === 0 && low === 0 ? [0, 0, 1] : [0, high!, low!];
}

const base36 = (value: number, width: number) => value.toString(36).padStart(width, '0');

/** A new id for an object of this kind, created at `nowMillis`. */
export function newId(kind: IdKind, nowMillis: number = Date.now()): string {
  let tail: number[] | undefined;
  if (nowMillis <= lastMillis) {
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

/** The pattern of an id of this kind, for JSON schemas and path parameters. */
export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIXES[kind]}_[0-9a-z]{24}$`;
}

/** The spec's pattern for any list cursor. */
export const CURSOR_PATTERN = '^[a-z]{2,8}_[0-9a-z]{20,32}$';
