// sqlTransaction: a plain transaction for handlers that use only sql().
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { connect } from '../../db/connection';
import { sql, sqlTransaction } from '../../db/sql';
import { freshDatabase, type TestDatabase } from '../support/database';

describe('sqlTransaction', () => {
  let database: TestDatabase;
  let db: Knex;

  before(async () => {
    database = await freshDatabase();
    db = connect(database.url, 2);
    await db.raw('create table notes (id int primary key, text text not null)');
  });
  after(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const count = async () => Number((await db('notes').count({ n: '*' }))[0]!.n);

  it('commits what the work wrote and answers its result', async () => {
    const answer = await sqlTransaction(db, async (trx) => {
      await sql(trx, 'insert into notes (id, text) values ($1, $2)', [1, 'kept']);
      await sql(trx, 'insert into notes (id, text) values ($1, $2)', [2, 'kept too']);
      return 'done';
    });
    assert.equal(answer, 'done');
    assert.equal(await count(), 2);
  });

  it('rolls everything back when the work fails, and the error comes through', async () => {
    await assert.rejects(
      sqlTransaction(db, async (trx) => {
        await sql(trx, 'insert into notes (id, text) values ($1, $2)', [3, 'lost']);
        await sql(trx, 'insert into notes (id, text) values ($1, $2)', [1, 'a duplicate id']);
      }),
      /duplicate key/,
    );
    assert.equal(await count(), 2);
  });

  it('refuses the query builder loudly instead of running outside the transaction', async () => {
    await assert.rejects(
      sqlTransaction(db, async (trx) => {
        await sql(trx, 'insert into notes (id, text) values ($1, $2)', [4, 'rolled back with the refusal']);
        await trx('notes').insert({ id: 5, text: 'never' });
      }),
      /a query builder call on a transaction that only sql\(\) may use/,
    );
    await assert.rejects(sqlTransaction(db, async (trx) => trx.raw('select 1')), /db\.raw on a transaction that only sql\(\) may use/);
    assert.equal(await count(), 2);
  });

  it('gives its connection back: more transactions than the pool has connections all finish', async () => {
    for (let i = 0; i < 5; i++) await sqlTransaction(db, (trx) => sql(trx, 'select 1'));
    await assert.rejects(sqlTransaction(db, () => Promise.reject(new Error('failed work'))), /failed work/);
    const results = await Promise.all([10, 11, 12, 13].map((id) => sqlTransaction(db, (trx) => sql(trx, 'insert into notes (id, text) values ($1, $2) returning id', [id, 'parallel']))));
    assert.equal(results.length, 4);
    assert.equal(await count(), 6);
  });
});
