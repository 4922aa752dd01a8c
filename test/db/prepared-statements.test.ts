// Prepared statements (db/sql.ts): those sent in simple queries (runStatements, runEach,
// commitWith) prepared once on a connection and run by EXECUTE, also after a query that failed part
// way; and a named prepared statement (sql, or EXECUTE) whose `select *` gained a column since it
// was prepared, as after a newer process of a rolling deploy migrates: PostgreSQL refuses it
// ("cached plan must not change result type"); it is prepared again and answers the new columns.
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { connect } from '../../db/connection';
import { runEach, runStatements, sql } from '../../db/sql';
import { freshDatabase, type TestDatabase } from '../support/database';

describe('prepared statements', () => {
  let database: TestDatabase;
  let knex: Knex;

  before(async () => {
    database = await freshDatabase();
    // One connection: every query meets what the ones before it prepared.
    knex = connect(database.url, 1);
    await knex.raw('create table tallies (id int primary key, tags text[] not null, times timestamptz[], n int not null default 0)');
    await knex.raw('create table notes (id int primary key)');
    await knex('notes').insert({ id: 1 });
  });
  after(async () => {
    await knex?.destroy();
    await database?.drop();
  });

  describe('statements sent in one simple query, prepared on their connection', () => {
    const add = { text: 'insert into tallies (id, tags, times) values ($1, $2, $3) returning id, tags, times', values: [] as unknown[] };
    const count = { text: 'update tallies set n = n + 1 where id = $1 returning n', values: [] as unknown[] };
    const prepared = async () =>
      (await knex.raw<{ rows: { statement: string; generic: number; custom: number }[] }>(`select statement, generic_plans as generic, custom_plans as custom from pg_prepared_statements where statement like 'prepare kasi_x_%' order by statement`)).rows;

    it('prepares each once and runs it by EXECUTE on its generic plan, its values (arrays, empty or of times, quotes, backslashes) given as they are', async () => {
      const at = new Date('2026-11-27T10:00:00.000Z');
      const written = await runStatements(knex, [
        { ...add, values: [1, [], null] },
        { ...add, values: [2, ['a "b"', "c'd", 'e\\f', '{g}'], [at]] },
        { ...count, values: [1] },
      ]);
      assert.deepEqual(written, [[{ id: 1, tags: [], times: null }], [{ id: 2, tags: ['a "b"', "c'd", 'e\\f', '{g}'], times: [at] }], [{ n: 1 }]]);
      await runEach(knex, [{ ...count, values: [1] }, { ...count, values: [2] }]);
      const plans = await prepared();
      assert.equal(plans.length, 2, 'one PREPARE each');
      assert.deepEqual(plans.map((p) => p.generic).sort(), [2, 3], 'each run by EXECUTE every time, on the plan made once (db/connection.ts)');
      assert.deepEqual(plans.map((p) => p.custom), [0, 0], 'none planned for its values');
    });

    it('a PREPARE that failed is not taken as held: the statement is prepared when it next comes', async () => {
      const read = { text: 'select count(*)::int as n from later', values: [] };
      await assert.rejects(runStatements(knex, [read, { ...count, values: [1] }]), /relation "later" does not exist/);
      await knex.raw('create table later (id int)');
      assert.deepEqual(await runStatements(knex, [read, { ...count, values: [1] }]), [[{ n: 0 }], [{ n: 3 }]]);
      assert.equal((await prepared()).filter((p) => p.statement.includes('from later')).length, 1, 'prepared, not written out');
    });

    it("sets generic plans for its own statements only: the connection's other queries keep plans made for their values", async () => {
      const mode = async (db: Knex | Knex.Transaction) => (await db.raw<{ rows: { plan_cache_mode: string }[] }>('show plan_cache_mode')).rows[0]!.plan_cache_mode;
      await runStatements(knex, [{ ...count, values: [1] }, { ...count, values: [2] }]);
      assert.equal(await mode(knex), 'auto');
      await knex.transaction(async (trx) => {
        await runStatements(trx, [{ ...count, values: [1] }, { ...count, values: [2] }]);
        assert.equal(await mode(trx), 'auto', 'nor later in its transaction');
      });
    });

    it('a statement gone stale after a migration is prepared again under a new name; sent again at once by runStatements, not by runEach', async () => {
      const all = { text: 'select * from tallies where id = $1', values: [2] };
      const row = { id: 2, tags: ['a "b"', "c'd", 'e\\f', '{g}'], times: [new Date('2026-11-27T10:00:00.000Z')] };
      assert.equal((await runStatements(knex, [all, { ...count, values: [2] }]))[0]![0]!.n, 3);
      await knex.raw('alter table tallies add column note text');
      assert.deepEqual(await runStatements(knex, [all, { ...count, values: [2] }]), [[{ ...row, n: 4, note: null }], [{ n: 5 }]]);
      await knex.raw('alter table tallies add column noted boolean');
      // runEach keeps what committed before the failure: sent again, the increment would be made twice.
      await assert.rejects(runEach(knex, [{ ...count, values: [2] }, all]), /cached plan must not change result type/);
      assert.deepEqual(await runEach(knex, [{ ...count, values: [2] }, all]), [[{ n: 7 }], [{ ...row, n: 7, note: null, noted: null }]]);
    });
  });

  describe('a prepared statement after a migration added a column', () => {
    it('outside a transaction, answers at once with the new column', async () => {
      const read = 'select * from notes where id = $1';
      assert.deepEqual(await sql(knex, read, [1]), [{ id: 1 }]);
      await knex.raw(`alter table notes add column body text not null default 'added'`);
      assert.deepEqual(await sql(knex, read, [1]), [{ id: 1, body: 'added' }]);
      assert.deepEqual(await sql(knex, read, [1]), [{ id: 1, body: 'added' }]);
    });

    it('inside a transaction, fails that transaction (aborted by the error), and its retry answers', async () => {
      const read = 'select * from notes where id = $1 for update';
      const inTransaction = () => knex.transaction((trx) => sql(trx, read, [1]));
      assert.equal((await inTransaction()).length, 1);
      await knex.raw('alter table notes add column tags text[]');
      await assert.rejects(inTransaction(), /cached plan must not change result type/);
      assert.deepEqual(await inTransaction(), [{ id: 1, body: 'added', tags: null }]);
    });
  });
});
