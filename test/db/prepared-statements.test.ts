// A named prepared statement (db/sql.ts sql) whose `select *` gained a column since it was prepared,
// as after a newer process of a rolling deploy migrates: PostgreSQL refuses it
// ("cached plan must not change result type"); it is prepared again and answers the new columns.
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { connect } from '../../db/connection';
import { sql } from '../../db/sql';
import { freshDatabase, type TestDatabase } from '../support/database';

describe('a prepared statement after a migration added a column', () => {
  let database: TestDatabase;
  let knex: Knex;

  before(async () => {
    database = await freshDatabase();
    // One connection: the statement is prepared on the connection the next call uses.
    knex = connect(database.url, 1);
    await knex.raw('create table notes (id int primary key)');
    await knex('notes').insert({ id: 1 });
  });
  after(async () => {
    await knex?.destroy();
    await database?.drop();
  });

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
