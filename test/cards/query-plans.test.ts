// The saved cards' queries read an index, not the table: the list (with and without an email), the
// monthly card.expiring sweep, and the boot-time resumers' queries. Each query is captured as the
// service runs it and explained with sequential scans priced out, so a plan that still has one
// means no index can serve it.
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import pg from 'pg';
import { connect, migrate } from '../../db/connection';
import { checkoutsWithCardToKeep, lockExpiringCards, newestSavedCards, processingCharges } from '../../db/saved-cards';
import { freshDatabase, type TestDatabase } from '../support/database';

describe('saved cards: query plans', () => {
  let database: TestDatabase;
  let knex: Knex;
  let client: pg.Client;

  before(async () => {
    database = await freshDatabase();
    knex = connect(database.url, 2);
    await migrate(knex);
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query('set enable_seqscan = off');
  });
  after(async () => {
    await client?.end();
    await knex?.destroy();
    await database?.drop();
  });

  /** The plans of the statements `run` sends (knex's own transaction statements left out). */
  async function plans(run: () => Promise<unknown>): Promise<string[]> {
    const sent: { sql: string; bindings: readonly unknown[] }[] = [];
    // knex reports each statement as sent: PostgreSQL's $n placeholders, and their values.
    const listen = (query: { sql: string; bindings?: readonly unknown[] }) => sent.push({ sql: query.sql, bindings: query.bindings ?? [] });
    knex.on('query', listen);
    try {
      await run();
    } finally {
      knex.off('query', listen);
    }
    const statements = sent.filter((q) => /^\s*(select|update|with)/i.test(q.sql));
    assert.ok(statements.length > 0);
    return Promise.all(
      statements.map(async (q) => {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain ${q.sql}`, [...q.bindings]);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      }),
    );
  }

  const scope = { accountId: 'acct_1', mode: 'test' as const };

  it('the list reads saved_cards_active, or saved_cards_active_email for one email', async () => {
    const [all] = await plans(() => newestSavedCards(knex, scope, undefined, 200));
    assert.match(all!, /Index Scan Backward using saved_cards_active on saved_cards/);
    const [email] = await plans(() => newestSavedCards(knex, scope, 'Nimal@Example.com', 200));
    assert.match(email!, /Index Scan Backward using saved_cards_active_email on saved_cards/);
    for (const plan of [all!, email!]) assert.doesNotMatch(plan, /Seq Scan|Sort/, plan);
  });

  it('the card.expiring sweep reads saved_cards_expiring', async () => {
    const [sweep] = await plans(() => knex.transaction((trx) => lockExpiringCards(trx, { year: 2026, month: 3 }, new Date(), 500)));
    assert.match(sweep!, /Index Scan using saved_cards_expiring on saved_cards/);
    assert.doesNotMatch(sweep!, /Seq Scan/, sweep);
  });

  it('the boot-time resumers read payments_card_to_keep and payments_processing', async () => {
    const [toKeep] = await plans(() => checkoutsWithCardToKeep(knex));
    assert.match(toKeep!, /Index Scan using payments_card_to_keep on payments/);
    const [charges] = await plans(() => processingCharges(knex));
    assert.match(charges!, /payments_processing/);
    for (const plan of [toKeep!, charges!]) assert.doesNotMatch(plan, /Seq Scan on payments/, plan);
  });
});
