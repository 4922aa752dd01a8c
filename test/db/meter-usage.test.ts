// Usage kept per bucket under races: events added to a bucket while invoicing closes it are
// neither lost nor billed twice (the open bucket's unique index makes a new one), and what all the
// invoices billed plus what is left open is exactly what was sent.
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { connect } from '../../db/connection';
import { createMerchant } from '../../db/merchants';
import { billUsage, insertMeter, purgeMeterEvents, recordMeterEvents, usageValues } from '../../db/meters';
import { USAGE_LIMITS } from '../../domain/usage';
import { freshDatabase, type TestDatabase } from '../support/database';

describe('meter usage: buckets under races, and events forgotten after 35 days', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let knex: Knex;

  before(async () => {
    database = await freshDatabase();
    knex = connect(database.url, 8);
  });
  after(async () => {
    await knex?.destroy();
    await database?.drop();
  });

  it('20 batches of 50 events into one bucket, each sent while an invoicing bills it: billed + open = sent, each event once', async () => {
    const now = new Date('2027-01-10T10:00:00.000Z');
    const accountId = (await createMerchant(knex, { name: 'Races', now })).account.id;
    await insertMeter(knex, { id: 'mtr_race00000000000000000000', account_id: accountId, mode: 'test', display_name: 'Calls', event_name: 'call', aggregation: 'sum', active: true, created_at: now, deactivated_at: null });
    const [{ id: customerId }] = await knex('customers').insert({ id: 'cus_race00000000000000000000', account_id: accountId, mode: 'test', email: 'race@example.com', locale: 'en', credit_balance_cents: 0, created_at: now, updated_at: now }).returning('id');
    const query = { meterId: 'mtr_race00000000000000000000', customerId, from: new Date('2027-01-01T00:00:00.000Z'), to: new Date('2027-02-01T00:00:00.000Z'), notInvoicedOnly: true };
    const batches = Array.from({ length: 20 }, (_, b) =>
      Array.from({ length: 50 }, (_, i) => ({ identifier: `e-${b}-${i}`, meterId: query.meterId, eventName: 'call', customerId, value: 1 + (i % 3), timestamp: now, bucketStart: now })),
    );
    const sent = batches.flat().reduce((sum, e) => sum + e.value, 0);
    const billed: number[] = [];
    // Each round sends a batch and bills at once, so invoicing meets events being added.
    for (const events of batches) {
      const [, [value]] = await Promise.all([recordMeterEvents(knex, { accountId, mode: 'test' }, events, now), knex.transaction((trx) => billUsage(trx, [query]))]);
      billed.push(value!);
    }
    const [open] = await usageValues(knex, [query]);
    assert.equal(billed.reduce((a, b) => a + b, 0) + open!, sent);
    // Sent again, every event is a duplicate: nothing more anywhere.
    await Promise.all(batches.map((events) => recordMeterEvents(knex, { accountId, mode: 'test' }, events, now)));
    const [all] = await usageValues(knex, [{ ...query, notInvoicedOnly: false }]);
    assert.equal(all, sent);
    // A bucket closed by an invoice took no more events: the later ones opened new buckets.
    const buckets = await knex('meter_usage').whereNotNull('billed_until').count({ n: '*' });
    assert.ok(Number(buckets[0]!.n) >= 2, `closed buckets: ${buckets[0]!.n}`);
  });

  it('the purge takes events that arrived over the window ago, in bounded batches; their identifiers count again, their usage stays', async () => {
    // Before the races' events arrived (10 January 2027): none of theirs is past the window.
    const now = new Date('2026-12-01T00:00:00.000Z');
    const accountId = (await createMerchant(knex, { name: 'Purge', now })).account.id;
    const scope = { accountId, mode: 'test' as const };
    await insertMeter(knex, { id: 'mtr_purge0000000000000000000', account_id: accountId, mode: 'test', display_name: 'Calls', event_name: 'call', aggregation: 'sum', active: true, created_at: now, deactivated_at: null });
    const event = (identifier: string) => ({ identifier, meterId: 'mtr_purge0000000000000000000', eventName: 'call', customerId: 'cus_purge0000000000000000000', value: 1, timestamp: now, bucketStart: now });
    const old = new Date(now.getTime() - USAGE_LIMITS.windowMs - 1);
    await recordMeterEvents(knex, scope, ['a', 'b', 'c', 'd', 'e'].map(event), old);
    await recordMeterEvents(knex, scope, [event('kept')], new Date(now.getTime() - USAGE_LIMITS.windowMs));
    // Batches of 2, at most 2 of them: 4 of the 5 old ones a call.
    assert.equal(await purgeMeterEvents(knex, now, USAGE_LIMITS.windowMs, { batch: 2, batches: 2 }), 4);
    assert.equal(await purgeMeterEvents(knex, now, USAGE_LIMITS.windowMs, { batch: 2, batches: 2 }), 1);
    assert.deepEqual(await knex('meter_events').where({ account_id: accountId }).pluck('identifier'), ['kept']);
    assert.deepEqual([...(await recordMeterEvents(knex, scope, ['a', 'kept'].map(event), now))], ['a']);
    const [all] = await usageValues(knex, [{ meterId: 'mtr_purge0000000000000000000', customerId: 'cus_purge0000000000000000000', from: now, to: new Date(now.getTime() + 1), notInvoicedOnly: false }]);
    assert.equal(all, 7);
  });
});
