// Each refund query reads one index range: a page of the account's refunds (all, or one
// payment's), the boot-time resumer's pending refunds. Sequential scans are priced out, so a plan
// that still needs one means no index serves the query.
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { connect } from '../../db/connection';
import { pendingRefunds, refundsQuery } from '../../db/refunds';
import { freshDatabase, type TestDatabase } from '../support/database';

describe('refund query plans', () => {
  let database: TestDatabase;
  let knex: Knex;

  before(async () => {
    database = await freshDatabase();
    knex = connect(database.url, 1);
  });
  after(async () => {
    await knex?.destroy();
    await database?.drop();
  });

  async function planOf(query: Knex.QueryBuilder | string): Promise<string> {
    return knex.transaction(async (trx) => {
      await trx.raw('set local enable_seqscan = off');
      const { rows } = (await trx.raw(`explain ${query.toString()}`)) as { rows: { 'QUERY PLAN': string }[] };
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
  }

  /** A list page as api/platform/pagination.ts asks for it: after the cursor, newest first. */
  const pageOf = (query: Knex.QueryBuilder) => query.where('id', '<', 're_0mwtsu24b7wywlfcctmq4ty5').orderBy('id', 'desc').limit(26);
  const scope = { accountId: 'acct_1', mode: 'test' as const };

  it('GET /v1/refunds: a backward range of (account_id, mode, id)', async () => {
    const plan = await planOf(pageOf(refundsQuery(knex, scope)));
    assert.match(plan, /Index Scan Backward using refunds_account_id_mode_id_index/, plan);
    assert.doesNotMatch(plan, /Seq Scan|Sort/, plan);
  });

  it('GET /v1/refunds?paymentId=: a backward range of (account_id, mode, payment_id, id)', async () => {
    const plan = await planOf(pageOf(refundsQuery(knex, scope, 'pay_0mwtsu24b7wywkpao1or4jxi')));
    assert.match(plan, /Index Scan Backward using refunds_account_id_mode_payment_id_id_index/, plan);
    assert.doesNotMatch(plan, /Seq Scan|Sort/, plan);
  });

  it('the resumer: the partial index of pending refunds', async () => {
    const sent: string[] = [];
    const record = (query: { sql: string }) => sent.push(query.sql);
    knex.on('query', record);
    await pendingRefunds(knex).finally(() => knex.off('query', record));
    assert.equal(sent.length, 1);
    // The query's only binding is the status.
    const plan = await planOf(sent[0]!.replace('$1', "'pending'"));
    assert.match(plan, /refunds_pending/, plan);
    assert.doesNotMatch(plan, /Seq Scan/, plan);
  });
});
