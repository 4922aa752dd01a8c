// The payment links list is one query on indexes: the account's newest links on
// (account_id, mode, id), and each link's count of payments on the partial index of the payments
// links took. Sequential scans are priced out, so a plan that still needs one means no index serves.
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { connect } from '../../db/connection';
import { markPaymentLinkInactive, newestPaymentLinks } from '../../db/payment-links';
import { freshDatabase, type TestDatabase } from '../support/database';

describe('payment links query plans', () => {
  let database: TestDatabase;
  let knex: Knex;

  before(async () => {
    database = await freshDatabase();
    knex = connect(database.url, 2);
  });
  after(async () => {
    await knex?.destroy();
    await database?.drop();
  });

  /** The plan of the one query `run` sends, with sequential scans priced out. */
  async function planOf(run: (db: Knex.Transaction) => Promise<unknown>): Promise<string> {
    return knex.transaction(async (trx) => {
      const sent: { sql: string; bindings: unknown[] }[] = [];
      const record = (query: { sql: string; bindings?: unknown[] }) => sent.push({ sql: query.sql, bindings: query.bindings ?? [] });
      knex.on('query', record);
      try {
        await run(trx).catch(() => undefined);
      } finally {
        knex.off('query', record);
      }
      assert.equal(sent.length, 1, JSON.stringify(sent));
      await trx.raw('set local enable_seqscan = off');
      // The event shows pg's $n placeholders, in binding order; raw takes ?.
      const { rows } = (await trx.raw(`explain ${sent[0]!.sql.replace(/\$\d+/g, '?')}`, sent[0]!.bindings as never)) as { rows: { 'QUERY PLAN': string }[] };
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
  }

  it('the list: the newest links by index, each count from the index of payments links took', async () => {
    const plan = await planOf((db) => newestPaymentLinks(db, { accountId: 'acct_1', mode: 'test' }, 200));
    assert.match(plan, /Index Scan Backward using payment_links_account_id_mode_id_index/, plan);
    assert.match(plan, /Index Only Scan using payments_link_taken|Index Scan using payments_link_taken/, plan);
    assert.doesNotMatch(plan, /Seq Scan/, plan);
  });

  it('turning a link off counts its payments on the same index', async () => {
    const plan = await planOf((db) => markPaymentLinkInactive(db, 'plink_1', new Date()));
    assert.match(plan, /payments_link_taken/, plan);
    assert.doesNotMatch(plan, /Seq Scan/, plan);
  });
});
