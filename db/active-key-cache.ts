// Every authenticated request needs its key and account. A server keeps those it has seen in
// memory, which saves a query (and a database round trip) on nearly every request, and forgets
// them all whenever any key or account changes: a trigger (migration 006) sends NOTIFY as the
// change commits. A revocation or suspension thus reaches every server within milliseconds.
// While the LISTEN connection is down, notifications may be missed, so nothing is served from
// memory until it is back.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { hashKey } from '../crypto/api-keys';
import { findActiveKey, type ActiveKey } from './api-keys';
import { listenFor } from './notifications';

export const KEY_CHANGES_CHANNEL = 'kasi_key_changes';

/** A bound on staleness should a notification ever go astray, and on memory. */
const KEEP_MS = 60_000;
const MAX_KEYS = 10_000;

export interface ActiveKeys {
  /** The key and its account if the key is usable at `now`, else null. */
  find(key: string, now: Date): Promise<ActiveKey | null>;
}

export interface ActiveKeyCache extends ActiveKeys {
  stop(): Promise<void>;
}

/** Straight from the database, every time. */
export function uncachedActiveKeys(db: Knex): ActiveKeys {
  return { find: (key, now) => findActiveKey(db, hashKey(key), now) };
}

export async function startActiveKeyCache(deps: { db: Knex; databaseUrl: string; log: Logger }): Promise<ActiveKeyCache> {
  // By hash, so a heap dump shows no key.
  const kept = new Map<string, { found: ActiveKey; at: number }>();
  // Bumped by every forget: a lookup that ran across one does not keep what it read.
  let generation = 0;
  const forget = () => {
    kept.clear();
    generation++;
  };
  const listener = await listenFor(deps.databaseUrl, KEY_CHANGES_CHANNEL, { notified: forget, lost: forget, regained: forget }, deps.log);

  return {
    async find(key, now) {
      const hash = hashKey(key);
      const hit = listener.listening ? kept.get(hash) : undefined;
      if (hit && performance.now() - hit.at < KEEP_MS) {
        const { expiresAt } = hit.found.key;
        return expiresAt === null || expiresAt > now ? hit.found : null;
      }
      const seen = generation;
      const found = await findActiveKey(deps.db, hash, now);
      if (found && listener.listening && generation === seen) {
        kept.delete(hash);
        if (kept.size >= MAX_KEYS) kept.delete(kept.keys().next().value as string);
        kept.set(hash, { found, at: performance.now() });
      }
      return found;
    },
    stop: () => listener.stop(),
  };
}
