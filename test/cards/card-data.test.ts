// After a card is kept, charged and deleted, its number is nowhere in the service: not in any
// column of any table (every column of every table, found through information_schema: the
// sandbox's own included), and not in any line the service logged at trace level.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { startApiWithMerchant, type TestApi } from '../support/api';
import { CARD_NUMBER, charge, payAndKeep } from './card-flow';

describe('saved cards keep no card number', function () {
  this.timeout(60_000);
  let api: TestApi;
  let keys: MerchantKeys;
  const logs: string[] = [];

  before(async () => {
    ({ api, keys } = await startApiWithMerchant({ env: { LOG_LEVEL: 'trace' }, logStream: { write: (line: string) => logs.push(line) } }));
  });
  after(() => api?.close());

  /** How many rows of the table have `digits` among the digits of the column's text. */
  async function holding(table: string, column: string, digits: string): Promise<number> {
    const row = await api.knex(table).whereRaw(`regexp_replace(??::text, '[^0-9]', '', 'g') like ?`, [column, `%${digits}%`]).count({ count: '*' }).first();
    return Number(row?.count);
  }

  it('no column of any table and no log line holds the number after a saved-card payment, a charge and a deletion', async () => {
    const { card } = await payAndKeep(api, keys);
    const made = await charge(api, keys.sk_test, card.id);
    await api.clock.advance(5_000);
    await api.workflows.settle();
    assert.equal((await api.request(`/v1/payments/${made.body.id}`, { key: keys.sk_test })).body.status, 'succeeded');
    await api.request(`/v1/cards/${card.id}`, { method: 'DELETE', key: keys.sk_test });

    const columns = (await api.knex('information_schema.columns').where({ table_schema: 'public' }).select('table_name', 'column_name')) as { table_name: string; column_name: string }[];
    const tables = new Set(columns.map((c) => c.table_name));
    for (const table of ['saved_cards', 'sandbox_tokens', 'sandbox_charges', 'sandbox_sessions', 'payments', 'events', 'idempotency_keys']) assert.ok(tables.has(table), table);
    for (const { table_name: table, column_name: column } of columns) {
      assert.equal(await holding(table, column, CARD_NUMBER), 0, `${table}.${column} holds the card number`);
    }
    // The search finds what it looks for: the last four digits are kept.
    assert.equal(await holding('saved_cards', 'last4', '0008'), 1);

    const logged = logs.join('');
    for (const line of ['"msg":"card kept"', '"msg":"payment succeeded"', '"savedCardId"', '/charge']) assert.ok(logged.includes(line), `the log covers the flow: ${line}`);
    assert.ok(!logged.replace(/\D/g, '').includes(CARD_NUMBER), 'a log line holds the card number');
    assert.ok(!logged.includes('cvv=100'), 'a log line holds the CVV');
  });
});
