// Every list is newest first by the time it shows: along a list, `created` (events) or `createdAt`
// never increases while the ids (the keyset cursor) strictly decrease, also when objects are
// dated earlier or later than the ones made just before them (a test clock a few seconds behind or
// ahead of the service; an invoice's events dated at the invoice's creation).
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';

describe('lists are ordered by the time they show', () => {
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-03-10T04:30:00.000Z') })));
  after(() => api.close());

  const post = async (path: string, body: unknown) => {
    const res = await api.request(path, { key: keys.sk_test, body, idempotencyKey: ik() });
    assert.ok(res.status < 300, `${path}: ${res.text}`);
    return res.body;
  };
  const clockAt = (offsetMs: number) => post('/v1/test_helpers/test_clocks', { frozenTime: new Date(api.clock.now().getTime() + offsetMs).toISOString() });

  /** Every page of the list, following the cursor. */
  async function all(path: string): Promise<Record<string, string>[]> {
    const items: Record<string, string>[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const res = await api.request(`${path}?limit=7${cursor === undefined ? '' : `&cursor=${cursor}`}`, { key: keys.sk_test });
      assert.equal(res.status, 200, res.text);
      items.push(...res.body.data);
      if (!res.body.hasMore) return items;
      cursor = res.body.nextCursor;
    }
    throw new Error(`${path}: more than 20 pages`);
  }

  function assertNewestFirst(name: string, items: Record<string, string>[], field: 'created' | 'createdAt'): void {
    for (const [i, item] of items.slice(1).entries()) {
      const before = items[i]!;
      assert.ok(before.id! > item.id!, `${name}: ids not decreasing at ${i + 1}: ${before.id} then ${item.id}`);
      assert.ok(before[field]! >= item[field]!, `${name}: ${field} increases at ${i + 1}: ${before.id} (${before[field]}, ${before.type ?? ''}) then ${item.id} (${item[field]}, ${item.type ?? ''})`);
    }
  }

  it('subscriptions created with and without a test clock (behind and ahead of now): events, subscriptions, invoices, customers', async () => {
    const price = await post('/v1/prices', { product: { name: 'Pro plan' }, unitAmountCents: 150000, interval: 'month' });
    const subscribe = (customer: Record<string, unknown>, collectionMethod: string) => post('/v1/subscriptions', { ...customer, priceId: price.id, collectionMethod });
    for (const offset of [-5_000, 4_000, -30_000]) {
      await subscribe({ customer: { email: `wall${offset}@example.com` } }, 'charge_automatically');
      const clock = await clockAt(offset);
      const customer = await post('/v1/customers', { email: `clock${offset}@example.com`, testClockId: clock.id });
      await subscribe({ customerId: customer.id }, 'charge_automatically');
      await subscribe({ customerId: customer.id }, 'send_invoice');
      await subscribe({ customer: { email: `wall${offset}@example.com` } }, 'send_invoice');
      await api.clock.advance(1_000);
    }
    const events = await all('/v1/events');
    assert.ok(events.length >= 40, `${events.length} events`);
    assertNewestFirst('events', events, 'created');
    for (const list of ['subscriptions', 'invoices', 'customers']) assertNewestFirst(list, await all(`/v1/${list}`), 'createdAt');
  });

  it('every object the test above stored: its id carries its created_at', async () => {
    const tables: string[] = await api.knex('information_schema.columns').where({ table_schema: 'public', column_name: 'created_at' }).whereIn('table_name', api.knex('information_schema.columns').where({ table_schema: 'public', column_name: 'id' }).select('table_name')).pluck('table_name');
    let checked = 0;
    for (const table of tables) {
      for (const row of await api.knex(table).select('id', 'created_at')) {
        const match = /^[a-z]+_([0-9a-z]{9})[0-9a-z]{15}$/.exec(String(row.id));
        if (match === null) continue;
        checked++;
        assert.equal(new Date(parseInt(match[1]!, 36)).toISOString(), row.created_at.toISOString(), `${table} ${row.id}`);
      }
    }
    assert.ok(checked > 50, `${checked} rows`);
  });
});
