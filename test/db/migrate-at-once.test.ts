// Processes started at once on a new database (two servers, a server and `kasi`) all migrate it:
// they take turns, and each finds it migrated.
import assert from 'node:assert/strict';
import { connect, migrate } from '../../db/connection';
import { withDatabase } from '../../db/database-url';
import { freshDatabase, type TestDatabase } from '../support/database';

describe('migrations started at once', function () {
  this.timeout(120_000);
  let admin: TestDatabase;
  before(async () => {
    admin = await freshDatabase();
  });
  after(() => admin?.drop());

  it('four processes migrating one new database at once: each succeeds, every migration applied once', async () => {
    const knex = connect(admin.url, 1);
    for (let round = 0; round < 3; round++) {
      const name = `kasi_new_${process.pid}_${round}_${Date.now()}`;
      await knex.raw(`create database ${name}`);
      const processes = Array.from({ length: 4 }, () => connect(withDatabase(admin.url, name), 2));
      try {
        const applied = await Promise.all(processes.map((p) => migrate(p)));
        const all = applied.flat();
        assert.equal(new Set(all).size, all.length, 'no migration applied twice');
        const rows = await processes[0]!('knex_migrations').count<{ count: string }[]>('* as count');
        assert.equal(Number(rows[0]!.count), all.length);
      } finally {
        await Promise.all(processes.map((p) => p.destroy()));
        await knex.raw(`drop database ${name} with (force)`);
      }
    }
    await knex.destroy();
  });
});
