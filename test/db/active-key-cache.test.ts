// The in-memory keys: what they save (no query for a key already seen), what makes a server forget
// them (a committed change to any key or account, through the trigger's notification), and what
// happens while the notification connection is down (nothing is served from memory).
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import pino from 'pino';
import { startActiveKeyCache, type ActiveKeyCache } from '../../db/active-key-cache';
import { hashKey } from '../../crypto/api-keys';
import { createApiKey } from '../../db/api-keys';
import { connect } from '../../db/connection';
import { createMerchant } from '../../db/merchants';
import { freshDatabase, type TestDatabase } from '../support/database';
import { eventually } from '../support/eventually';

describe('keys kept in memory', () => {
  let database: TestDatabase;
  let knex: Knex;
  let cache: ActiveKeyCache;
  let accountId: string;
  const now = new Date('2026-11-22T00:00:00Z');

  before(async () => {
    database = await freshDatabase();
    knex = connect(database.url, 4);
    accountId = (await createMerchant(knex, { name: 'Cache', now })).account.id;
    cache = await startActiveKeyCache({ db: knex, databaseUrl: database.url, log: pino({ level: 'silent' }) });
  });
  after(async () => {
    await cache?.stop();
    await knex?.destroy();
    await database?.drop();
  });

  const newKey = async (expiresAt: Date | null = null) => (await createApiKey(knex, { accountId, kind: 'secret', mode: 'test', expiresAt, now })).key;

  /** Revokes without the trigger: a change no server hears of, so only a lookup that queries sees it. */
  async function revokeQuietly(key: string): Promise<void> {
    await knex.transaction(async (trx) => {
      await trx.raw('alter table api_keys disable trigger api_keys_changed');
      await trx('api_keys').where({ key_hash: hashKey(key) }).update({ revoked_at: now });
      await trx.raw('alter table api_keys enable trigger api_keys_changed');
    });
  }

  it('answers a key it has seen from memory, without a query', async () => {
    const key = await newKey();
    assert.ok(await cache.find(key, now));
    await revokeQuietly(key);
    assert.ok(await cache.find(key, now), 'still the remembered key: no query was made');
    assert.equal(await cache.find(`sk_test_${'Z'.repeat(32)}`, now), null, 'an unknown key is looked up, and not found');
  });

  it('forgets every key when any key changes, and when an account changes', async () => {
    const key = await newKey();
    assert.ok(await cache.find(key, now));
    await revokeQuietly(key);
    // Another key's change forgets this one too: the next lookup queries and sees the revocation.
    await knex('api_keys').where({ key_hint: 'nothing' }).update({ revoked_at: now });
    assert.equal(await eventually(() => cache.find(key, now), (found) => found === null), null);

    const other = await newKey();
    assert.equal((await cache.find(other, now))!.account.status, 'not_activated');
    await knex('accounts').where({ id: accountId }).update({ status: 'suspended' });
    const seen = await eventually(() => cache.find(other, now), (found) => found?.account.status === 'suspended');
    assert.equal(seen!.account.status, 'suspended');
    await knex('accounts').where({ id: accountId }).update({ status: 'not_activated' });
  });

  it('refuses a remembered key once past its end date', async () => {
    const end = new Date(now.getTime() + 60_000);
    const key = await newKey(end);
    assert.ok(await cache.find(key, now));
    assert.equal(await cache.find(key, end), null);
    assert.ok(await cache.find(key, now), 'still remembered for an earlier moment');
  });

  it('serves nothing from memory while its notification connection is down, and remembers again once it is back', async () => {
    const key = await newKey();
    assert.ok(await cache.find(key, now));
    const { rowCount } = await knex.raw(
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'kasi-listen-kasi_key_changes'`,
    );
    assert.equal(rowCount, 1);
    // Without a notification, only a lookup that queries sees this revocation.
    await revokeQuietly(key);
    assert.equal(await eventually(() => cache.find(key, now), (found) => found === null), null);
    // Still down (it waits half a second before reconnecting): a key looked up now is not kept.
    const meanwhile = await newKey();
    assert.ok(await cache.find(meanwhile, now));
    await revokeQuietly(meanwhile);
    assert.equal(await cache.find(meanwhile, now), null);

    // Reconnected (after half a second), it remembers again: a quiet revocation goes unseen.
    const remembered = await eventually(
      async () => {
        const later = await newKey();
        await cache.find(later, now);
        await revokeQuietly(later);
        return cache.find(later, now);
      },
      (found) => found !== null,
    );
    assert.ok(remembered);
  });
});
