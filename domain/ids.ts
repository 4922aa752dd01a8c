// Object ids: a prefix plus 24 characters of [0-9a-z]. The first 9 characters are the creation
// millisecond in base 36, so ids sort by creation time and a list's cursor is simply the last id
// (keyset pagination). Within one millisecond the random tail is incremented, so ids made in one
// process stay strictly increasing.
import { randomBytes } from 'node:crypto';

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

const TIME_CHARS = 9;
const RANDOM_CHARS = 15;
const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const RANDOM_SPACE = 36n ** BigInt(RANDOM_CHARS);

let lastMillis = -1;
let lastRandom = 0n;

function randomTail(): bigint {
  // 80 random bits, reduced into the tail's range (bias is negligible for ids).
  return BigInt('0x' + randomBytes(10).toString('hex')) % RANDOM_SPACE;
}

function base36(value: bigint, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[Number(rest % 36n)] + out;
    rest /= 36n;
  }
  return out;
}

/** A new id for an object of this kind, created at `nowMillis`. */
export function newId(kind: IdKind, nowMillis: number = Date.now()): string {
  let random: bigint;
  if (nowMillis <= lastMillis) {
    // Same (or an earlier, clock stepped back) millisecond: keep increasing from the last id.
    nowMillis = lastMillis;
    random = (lastRandom + 1n) % RANDOM_SPACE;
  } else {
    random = randomTail();
  }
  lastMillis = nowMillis;
  lastRandom = random;
  return `${ID_PREFIXES[kind]}_${base36(BigInt(nowMillis), TIME_CHARS)}${base36(random, RANDOM_CHARS)}`;
}

/** The pattern of an id of this kind, for JSON schemas and path parameters. */
export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIXES[kind]}_[0-9a-z]{24}$`;
}

/** The spec's pattern for any list cursor. */
export const CURSOR_PATTERN = '^[a-z]{2,8}_[0-9a-z]{20,32}$';
