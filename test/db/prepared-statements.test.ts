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

    it('after a query that failed part way, prepares again what never ran', async () => {
      const broken = { text: 'select no_such_column from tallies where id = $1', values: [1] };
      const read = { text: 'select n from tallies where id = $1', values: [1] };
      // The broken PREPARE stops the query: the one after it was never prepared.
      await assert.rejects(runStatements(knex, [broken, read]), /no_such_column/);
      assert.deepEqual(await runStatements(knex, [read, { ...count, values: [1] }]), [[{ n: 2 }], [{ n: 3 }]]);
    });

    it('a statement gone stale after a migration is prepared again under a new name and sent again, outside a transaction', async () => {
      const all = { text: 'select * from tallies where id = $1', values: [2] };
      assert.equal((await runStatements(knex, [all, { ...count, values: [2] }]))[0]![0]!.n, 1);
      await knex.raw('alter table tallies add column note text');
      assert.deepEqual(await runStatements(knex, [all, { ...count, values: [2] }]), [[{ id: 2, tags: ['a "b"', "c'd", 'e\\f', '{g}'], times: [new Date('2026-11-27T10:00:00.000Z')], n: 2, note: null }], [{ n: 3 }]]);
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
