// Object ids: a prefix plus 24 characters of [0-9a-z]. The first 9 characters are the creation
// millisecond in base 36, so ids sort by creation time and a list's cursor is simply the last id
// (keyset pagination). An id always carries its object's time, also one earlier than the last id's,
// so a list is ordered by the `created` it shows. The 15-character tail is random (77 bits). An id
// made at a millisecond another was made at adds a random step of 1 to 36^10 (51 bits) to that
// one's tail, so ids of one millisecond made in one process increase in the order made and still
// no id can be guessed from a neighbour: the checkout URL is a hosted page's only credential. The
// generator, which needs Node's random source, is crypto/ids.ts; the prefixes and patterns stay
// here, pure.
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
  billingAlert: 'alrt',
  webhookEndpoint: 'we',
  webhookDelivery: 'whd',
  paymentLink: 'plink',
  upgradeRequest: 'upreq',
  email: 'em',
  testClock: 'clock',
  coupon: 'coupon',
  taxRate: 'txr',
  invoiceItem: 'ii',
  creditNote: 'cn',
  balanceTransaction: 'cbt',
  entitlementFeature: 'feat',
  productFeature: 'pf',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/** The random tail's 15 characters, as three numbers of five base-36 digits (each below 2^26). */
export const CHUNK_SPACE = 36 ** 5;

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

/** The pattern of an id of this kind, for JSON schemas and path parameters. */
export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIXES[kind]}_[0-9a-z]{24}$`;
}

/** The spec's pattern for any list cursor. */
export const CURSOR_PATTERN = '^[a-z]{2,8}_[0-9a-z]{20,32}$';
