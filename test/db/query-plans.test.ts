// The hot queries' plans, as the server runs them: prepared statements with a generic plan (what
// a named statement settles on). Sequential scans are priced out, so a plan that still needs one
// means no index can serve the query.
import assert from 'node:assert/strict';
import knex from 'knex';
import pg from 'pg';
import { ACTIVE_ENTITLEMENTS_SQL, CUSTOMERS_OF_FEATURE_SQL, CUSTOMERS_OF_PRODUCT_SQL, REFRESH_SUMMARIES_SQL } from '../../db/entitlements';
import { invoiceItemsQuery } from '../../db/invoice-items';
import { MONTHLY_USAGE_SQL } from '../../db/monthly-usage';
import { freshDatabase, type TestDatabase } from '../support/database';

describe('query plans', () => {
  let database: TestDatabase;
  let client: pg.Client;

  before(async () => {
    database = await freshDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query('set plan_cache_mode = force_generic_plan');
    await client.query('set enable_seqscan = off');
  });
  after(async () => {
    await client?.end();
    await database?.drop();
  });

  async function genericPlan(sql: string, types: string[], args: string[]): Promise<string> {
    await client.query(`prepare planned (${types.join(', ')}) as ${sql}`);
    try {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain execute planned (${args.join(', ')})`);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await client.query('deallocate planned');
    }
  }

  it("the month's use reads two running totals by their keys, not the month's payments", async () => {
    const plan = await genericPlan(MONTHLY_USAGE_SQL, ['text', 'text', 'timestamptz', 'timestamptz'], ["'acct_1'", "'test'", 'now()', 'now()']);
    assert.match(plan, /Index Scan using processing_usage_pkey/);
    assert.match(plan, /Index Scan using monthly_succeeded_pkey/);
    assert.doesNotMatch(plan, /payments/, plan);
    assert.doesNotMatch(plan, /Seq Scan/, plan);
  });

  it('a customer\'s entitlements are read from their subscriptions by index, and a product\'s or a feature\'s subscribers from its prices and items', async () => {
    const bySubscriber = /Index Scan using subscriptions_account_id_mode_customer_id_id_index on subscriptions/;
    for (const [sql, types, args, indexes] of [
      [ACTIVE_ENTITLEMENTS_SQL, ['text'], ["'cus_1'"], [bySubscriber]],
      [REFRESH_SUMMARIES_SQL, ['text[]', 'timestamptz', 'timestamptz'], ["'{cus_1}'", 'null', 'now()'], [bySubscriber, /entitlement_summaries_pkey/]],
      [CUSTOMERS_OF_PRODUCT_SQL, ['text'], ["'prod_1'"], [/Index Scan using prices_product/, /Index Scan on subscription_items_price/]],
      [CUSTOMERS_OF_FEATURE_SQL, ['text'], ["'feat_1'"], [/product_features_feature_id_index/, /prices_product/, /subscription_items_price/]],
    ] as const) {
      const plan = await genericPlan(sql, [...types], [...args]);
      for (const index of indexes) assert.match(plan, index);
      assert.doesNotMatch(plan, /Seq Scan/, plan);
    }
  });

  it('an account\'s pending invoice items are listed by an index of the pending ones alone', async () => {
    const { sql, bindings } = invoiceItemsQuery(knex({ client: 'pg' }), { accountId: 'acct_1', mode: 'test' }, { pending: true }).orderBy('id', 'desc').limit(10).toSQL().toNative();
    const plan = await genericPlan(sql, ['text', 'text', 'int'], bindings.map((b) => (typeof b === 'string' ? `'${b}'` : String(b))));
    assert.match(plan, /Index Scan Backward using invoice_items_pending_by_account/, plan);
  });
});
