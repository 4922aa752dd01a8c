// API keys: `<kind>_<mode>_` plus 32 characters of [0-9A-Za-z]. Keys carry 190 bits of
// randomness, so a plain SHA-256 is the right stored form (a slow password hash buys nothing and
// would cost every request); the key itself is shown once, at creation. Generating and hashing
// keys needs Node's crypto: crypto/api-keys.ts.

export const KEY_KINDS = ['secret', 'publishable', 'agent'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

export const MODES = ['test', 'live'] as const;
export type Mode = (typeof MODES)[number];

export const PERMISSIONS = [
  'checkouts:create',
  'payments:read',
  'refunds:write',
  'cards:read',
  'cards:charge',
  'events:read',
  'billing:read',
  'billing:write',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/**
 * What a route needs of a key: one permission, or `all` for what would hand the account over
 * (where its events go, and their signing secret): a key holding every permission, which a
 * restricted key never does.
 */
export type PermissionNeed = Permission | 'all';

export function holdsPermission(held: readonly Permission[], need: PermissionNeed): boolean {
  return need === 'all' ? PERMISSIONS.every((p) => held.includes(p)) : held.includes(need);
}

export const KIND_PREFIX: Record<KeyKind, string> = { secret: 'sk', publishable: 'pk', agent: 'ak' };
export const SECRET_LENGTH = 32;
export const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_SHAPE = new RegExp(`^(sk|pk|ak)_(test|live)_[0-9A-Za-z]{${SECRET_LENGTH}}$`);

/** What a key may do when it is made without an explicit permission list. */
export const DEFAULT_PERMISSIONS: Record<KeyKind, readonly Permission[]> = {
  secret: PERMISSIONS,
  publishable: ['checkouts:create'],
  agent: PERMISSIONS,
};

/** The kind and mode a token claims, or null when it is not shaped like one of our keys. */
export function parseKeyShape(token: string): { kind: KeyKind; mode: Mode } | null {
  const match = KEY_SHAPE.exec(token);
  if (!match) return null;
  const kind = KEY_KINDS.find((k) => KIND_PREFIX[k] === match[1]) as KeyKind;
  return { kind, mode: match[2] as Mode };
}

/** What may be shown of a key after creation: its prefix and last four characters. */
export function redactKey(key: string): string {
  return `${key.slice(0, 8)}...${key.slice(-4)}`;
}
