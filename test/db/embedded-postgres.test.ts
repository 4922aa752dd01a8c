// The embedded PostgreSQL as the server and the CLI share it: the first process starts it; the
// next finds it through postmaster.pid and connects to the same server and data.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../db/connection';
import { findOrStartEmbeddedPostgres } from '../../db/embedded-postgres';

describe('embedded PostgreSQL', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kasi-embedded-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is started by the first process and found, with the same data, by the next', async () => {
    const first = await openDatabase({ databaseUrl: undefined, dataDir });
    try {
      await first.knex('accounts').insert({ id: 'acct_shared00000000000000000', name: 'Shared', status: 'active', plan: 'starter', saved_cards: false, created_at: new Date(), updated_at: new Date() });
      const found = await findOrStartEmbeddedPostgres(dataDir);
      assert.equal(found.owned, false);
      const second = await openDatabase({ databaseUrl: undefined, dataDir });
      try {
        assert.equal(second.url, first.url);
        const row = await second.knex('accounts').where({ id: 'acct_shared00000000000000000' }).first();
        assert.equal(row.name, 'Shared');
      } finally {
        await second.close();
      }
      assert.equal((await first.knex.raw('select 1 as ok')).rows[0].ok, 1, 'closing the finder leaves the owner\'s server running');
    } finally {
      await first.close();
    }
    // Started again after a stop, on the data kept in the folder.
    const again = await openDatabase({ databaseUrl: undefined, dataDir });
    try {
      assert.equal((await again.knex('accounts').count('* as n').first())!.n, 1);
    } finally {
      await again.close();
    }
  });
});
