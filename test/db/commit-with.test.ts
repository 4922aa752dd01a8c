// A transaction's last writes sent with its COMMIT (db/sql.ts commitWith): committed with everything
// before them, their values written in as literals (arrays, quotes, backslashes and a `$1` in a value included),
// and a write after them refused rather than landing outside the transaction they ended. And
// statements sent together in one round trip (runStatements: one transaction; runEach: one each).
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { connect } from '../../db/connection';
import { commitWith, runEach, runStatements } from '../../db/sql';
import { freshDatabase, type TestDatabase } from '../support/database';

describe('the last write sent with the COMMIT', () => {
  let database: TestDatabase;
  let knex: Knex;

  before(async () => {
    database = await freshDatabase();
    knex = connect(database.url, 2);
    await knex.raw('create table notes (id int primary key, body text not null, tags text[] not null)');
  });
  after(async () => {
    await knex?.destroy();
    await database?.drop();
  });

  it('commits the transaction with it and answers its rows; a write after it fails, the transaction kept', async () => {
    const written = await knex.transaction(async (trx) => {
      await trx('notes').insert({ id: 1, body: 'before', tags: [] });
      return commitWith(trx, [
        { text: 'insert into notes values ($1, $2, $3::text[]) returning *', values: [2, "it's the last, $1 and all", ['a', "b'c", 'C:\\dir\\it\'s', '{"q":"\\"\'"}']] },
        { text: 'insert into notes values ($1, $2, $3::text[]) returning id', values: [3, 'and this', []] },
      ]);
    });
    assert.deepEqual(written, [[{ id: 2, body: "it's the last, $1 and all", tags: ['a', "b'c", 'C:\\dir\\it\'s', '{"q":"\\"\'"}'] }], [{ id: 3 }]]);
    assert.deepEqual((await knex('notes').orderBy('id')).map((n: { id: number }) => n.id), [1, 2, 3]);

    await assert.rejects(
      knex.transaction(async (trx) => {
        await commitWith(trx, [{ text: 'insert into notes values ($1, $2, $3::text[])', values: [4, 'last', []] }]);
        await trx('notes').insert({ id: 5, body: 'after the last', tags: [] });
      }),
      /read-only transaction/,
    );
    assert.deepEqual((await knex('notes').orderBy('id')).map((n: { id: number }) => n.id), [1, 2, 3, 4]);
  });

  it('refuses an object as a literal (JSON is written as text by its caller), the transaction rolled back', async () => {
    await assert.rejects(
      knex.transaction(async (trx) => {
        await trx('notes').insert({ id: 20, body: 'before', tags: [] });
        await commitWith(trx, [{ text: 'insert into notes values ($1, $2, $3::text[])', values: [21, { not: 'text' }, []] }]);
      }),
      /an object given as an SQL literal/,
    );
    assert.equal((await knex('notes').whereIn('id', [20, 21])).length, 0);
  });

  it('a failing last write rolls back the whole transaction', async () => {
    await assert.rejects(
      knex.transaction(async (trx) => {
        await trx('notes').insert({ id: 10, body: 'before', tags: [] });
        await commitWith(trx, [{ text: 'insert into notes values ($1, $2, $3::text[])', values: [1, 'a duplicate id', []] }]);
      }),
      /duplicate key/,
    );
    assert.equal((await knex('notes').where({ id: 10 })).length, 0);
  });

  it('statements in one round trip: runStatements in one transaction, runEach in one each; a failing one stops those after it, those before kept', async () => {
    const txid = { text: 'select txid_current()::text as id, $1::int as n', values: [0] };
    const together = (await runStatements(knex, [txid, { ...txid, values: [1] }])).map(([row]) => row!);
    assert.deepEqual(together.map((row) => row.n), [0, 1]);
    assert.equal(together[0]!.id, together[1]!.id);
    const each = (await runEach(knex, [txid, { ...txid, values: [1] }, { ...txid, values: [2] }])).map(([row]) => row!);
    assert.deepEqual(each.map((row) => row.n), [0, 1, 2]);
    assert.equal(new Set(each.map((row) => row.id)).size, 3, 'a transaction each');

    await assert.rejects(knex.transaction((trx) => runEach(trx, [txid, txid])), /outside one/);

    const insert = (id: number) => ({ text: 'insert into notes values ($1, $2, $3::text[]) returning id', values: [id, 'each', []] });
    await assert.rejects(runEach(knex, [insert(30), insert(1), insert(31)]), /duplicate key/);
    // Both of the pool's connections, the failed one's aborted transaction ended.
    const [kept] = await Promise.all([knex('notes').whereIn('id', [30, 31]), knex.raw('select pg_sleep(0.05)'), knex.raw('select 1')]);
    assert.deepEqual(kept.map((n: { id: number }) => n.id), [30], 'the one before the failure kept, the one after not run');
  });
});
