// Meters, meter events, event summaries, billing alerts and metered prices over HTTP: every rule
// and error of DESIGN.md's "Adjustments and usage: the resources" and its fine print "Meter events".
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';

const START = new Date('2027-03-10T04:30:00.000Z');

describe('usage: meters, meter events, summaries and alerts over HTTP', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: START })));
  after(() => api.close());

  const send = (path: string, body: unknown, key = keys.sk_test) => api.request(path, { key, body, idempotencyKey: ik() });
  const post = async (path: string, body: unknown, key = keys.sk_test) => {
    const res = await send(path, body, key);
    assert.ok(res.status < 300, `${path}: ${res.text}`);
    return res.body;
  };
  const get = async (path: string, key = keys.sk_test) => (await api.request(path, { key })).body;
  const event = (body: unknown) => api.request('/v1/meter_events', { key: keys.sk_test, body });
  const batch = (events: unknown[]) => api.request('/v1/meter_events/batch', { key: keys.sk_test, body: { events } });
  const customer = (email: string, extra: object = {}) => post('/v1/customers', { email, ...extra });
  const summary = async (meterId: string, customerId: string, range = '') => (await get(`/v1/meters/${meterId}/event_summaries?customerId=${customerId}${range}`)).data[0];

  it('a meter: made, listed newest first page by page, read, deactivated; its event name counted once per mode (409 meter_exists)', async () => {
    const a = await post('/v1/meters', { displayName: 'Searches', eventName: 'search', aggregation: 'count' });
    assert.deepEqual(a, { object: 'meter', id: a.id, mode: 'test', displayName: 'Searches', eventName: 'search', aggregation: 'count', active: true, createdAt: START.toISOString() });
    assert.match(a.id, /^mtr_[0-9a-z]{24}$/);
    const taken = await send('/v1/meters', { displayName: 'Again', eventName: 'search', aggregation: 'sum' });
    assert.deepEqual([taken.status, taken.body.code, taken.body.reason], [409, 'CONFLICT', 'meter_exists']);
    // The other mode's event names are its own.
    const live = await post('/v1/meters', { displayName: 'Searches', eventName: 'search', aggregation: 'count' }, keys.sk_live);
    assert.equal(live.mode, 'live');
    const b = await post('/v1/meters', { displayName: 'Rows', eventName: 'rows.stored', aggregation: 'last' });
    const first = await get('/v1/meters?limit=1');
    assert.deepEqual([first.data.map((m: any) => m.id), first.hasMore], [[b.id], true]);
    const second = await get(`/v1/meters?limit=1&cursor=${b.id}`);
    assert.deepEqual(second.data.map((m: any) => m.id), [a.id]);
    assert.deepEqual(await get(`/v1/meters/${a.id}`), a);
    const other = await api.request(`/v1/meters/${live.id}`, { key: keys.sk_test });
    assert.deepEqual([other.status, other.body.reason], [404, 'mode_mismatch']);
    assert.equal((await api.request('/v1/meters/mtr_000000000000000000000000', { key: keys.sk_test })).status, 404);
    const gone = await api.request(`/v1/meters/${a.id}`, { method: 'DELETE', key: keys.sk_test, idempotencyKey: ik() });
    assert.deepEqual([gone.status, gone.body.active], [200, false]);
    // Its event name is free again.
    assert.equal((await post('/v1/meters', { displayName: 'Searches v2', eventName: 'search', aggregation: 'sum' })).active, true);
    const bad = await send('/v1/meters', { displayName: '', eventName: 'Has Space', aggregation: 'max' });
    assert.deepEqual([bad.status, bad.body.fields.map((f: any) => f.path).sort()], [400, ['aggregation', 'displayName', 'eventName']]);
    assert.equal((await api.request('/v1/meters', { key: keys.sk_test, body: { displayName: 'x', eventName: 'x', aggregation: 'sum' } })).body.reason, 'idempotency_key_missing');
  });

  it('a meter event: 201 counted; its identifier again 200 with the first event, duplicate, counting nothing', async () => {
    const meter = await post('/v1/meters', { displayName: 'API calls', eventName: 'api_call', aggregation: 'sum' });
    const c = await customer('events@example.com');
    const sent = await event({ eventName: 'api_call', customerId: c.id, value: 7, identifier: 'req-1' });
    assert.equal(sent.status, 201);
    assert.deepEqual(sent.body, { object: 'meter_event', identifier: 'req-1', eventName: 'api_call', customerId: c.id, value: 7, timestamp: START.toISOString(), duplicate: false });
    const again = await event({ eventName: 'api_call', customerId: c.id, value: 100, identifier: 'req-1', timestamp: '2027-03-09T00:00:00.000Z' });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { ...sent.body, duplicate: true });
    // The default value is 1 and an identifier is made.
    const made = await event({ eventName: 'api_call', customerId: c.id });
    assert.deepEqual([made.status, made.body.value, typeof made.body.identifier], [201, 1, 'string']);
    const list = await get(`/v1/meters/${meter.id}/event_summaries?customerId=${c.id}`);
    // No subscription bills the meter: the calendar month in Sri Lanka. A list like every other, one page.
    assert.deepEqual(list, {
      object: 'list',
      data: [{ object: 'meter_event_summary', meterId: meter.id, customerId: c.id, startTime: '2027-02-28T18:30:00.000Z', endTime: '2027-03-31T18:30:00.000Z', aggregatedValue: 8 }],
      hasMore: false,
      nextCursor: null,
    });
  });

  it('refused: an event name no active meter counts (400 meter_invalid), a customer not of this mode, timestamps out of range, bad values', async () => {
    const c = await customer('refused@example.com');
    const none = await event({ eventName: 'nothing_counts_this', customerId: c.id });
    assert.deepEqual([none.status, none.body.reason, none.body.fields], [400, 'meter_invalid', [{ path: 'eventName', message: 'No active meter of this mode counts this event name.' }]]);
    const liveOnly = await post('/v1/meters', { displayName: 'Live only', eventName: 'live_only', aggregation: 'sum' }, keys.sk_live);
    assert.equal((await event({ eventName: liveOnly.eventName, customerId: c.id })).body.reason, 'meter_invalid');
    const off = await post('/v1/meters', { displayName: 'Off', eventName: 'off', aggregation: 'sum' });
    await api.request(`/v1/meters/${off.id}`, { method: 'DELETE', key: keys.sk_test, idempotencyKey: ik() });
    assert.equal((await event({ eventName: 'off', customerId: c.id })).body.reason, 'meter_invalid');

    await post('/v1/meters', { displayName: 'Checks', eventName: 'check', aggregation: 'count' });
    const liveCustomer = await post('/v1/customers', { email: 'live@example.com' }, keys.sk_live);
    const foreign = await event({ eventName: 'check', customerId: liveCustomer.id });
    assert.deepEqual([foreign.status, foreign.body.reason, foreign.body.fields.map((f: any) => f.path)], [400, undefined, ['customerId']]);
    assert.equal(foreign.body.code, 'VALIDATION_FAILED');
    const old = await event({ eventName: 'check', customerId: c.id, timestamp: new Date(START.getTime() - 35 * 86400_000 - 1).toISOString() });
    assert.deepEqual([old.status, old.body.fields], [400, [{ path: 'timestamp', message: 'Within the past 35 days (in the customer\'s time).' }]]);
    assert.equal((await event({ eventName: 'check', customerId: c.id, timestamp: new Date(START.getTime() - 35 * 86400_000).toISOString() })).status, 201);
    const ahead = await event({ eventName: 'check', customerId: c.id, timestamp: new Date(START.getTime() + 5 * 60_000 + 1).toISOString() });
    assert.deepEqual(ahead.body.fields, [{ path: 'timestamp', message: 'At most 5 minutes ahead of the customer\'s time.' }]);
    assert.equal((await event({ eventName: 'check', customerId: c.id, timestamp: new Date(START.getTime() + 5 * 60_000).toISOString() })).status, 201);
    for (const body of [{ eventName: 'check', customerId: c.id, value: -1 }, { eventName: 'check', customerId: c.id, value: 1_000_000_001 }, { eventName: 'check', customerId: c.id, identifier: 'x'.repeat(101) }]) {
      assert.equal((await event(body)).status, 400, JSON.stringify(body));
    }
  });

  it('timestamps are the customer\'s time: on a test clock, within 35 days of the clock\'s', async () => {
    await post('/v1/meters', { displayName: 'Clocked', eventName: 'clocked', aggregation: 'sum' });
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: '2027-06-01T00:00:00.000Z' });
    const c = await customer('clocked@example.com', { testClockId: clock.id });
    const now = await event({ eventName: 'clocked', customerId: c.id });
    assert.deepEqual([now.status, now.body.timestamp], [201, '2027-06-01T00:00:00.000Z']);
    // Wall time (the service's) is months before the clock's: out of range for this customer.
    assert.equal((await event({ eventName: 'clocked', customerId: c.id, timestamp: START.toISOString() })).status, 400);
    assert.equal((await event({ eventName: 'clocked', customerId: c.id, timestamp: '2027-05-01T00:00:00.000Z' })).status, 201);
  });

  it('a batch: all counted but duplicates (kept before or repeated in it); refused whole when one is invalid, fields naming events[i]', async () => {
    const meter = await post('/v1/meters', { displayName: 'Uploads', eventName: 'upload', aggregation: 'sum' });
    const c = await customer('batch@example.com');
    await event({ eventName: 'upload', customerId: c.id, value: 1, identifier: 'up-0' });
    const res = await batch([
      { eventName: 'upload', customerId: c.id, value: 10, identifier: 'up-0' },
      { eventName: 'upload', customerId: c.id, value: 20, identifier: 'up-1' },
      { eventName: 'upload', customerId: c.id, value: 30, identifier: 'up-2' },
      { eventName: 'upload', customerId: c.id, value: 40, identifier: 'up-2' },
    ]);
    assert.deepEqual([res.status, res.body], [200, { object: 'meter_event_batch', accepted: 2, duplicates: 2 }]);
    assert.equal((await summary(meter.id, c.id)).aggregatedValue, 51);
    const refused = await batch([
      { eventName: 'upload', customerId: c.id, value: 5, identifier: 'up-3' },
      { eventName: 'upload', customerId: c.id, timestamp: '2020-01-01T00:00:00.000Z' },
      { eventName: 'nope', customerId: c.id },
    ]);
    assert.deepEqual([refused.status, refused.body.reason, refused.body.fields.map((f: any) => f.path)], [400, 'meter_invalid', ['events[1].timestamp', 'events[2].eventName']]);
    const shape = await batch([{ eventName: 'upload', customerId: c.id }, { eventName: 'upload', customerId: c.id, value: 'ten' }]);
    assert.deepEqual([shape.status, shape.body.fields.map((f: any) => f.path)], [400, ['events[1].value']]);
    // Nothing of the refused batches was kept: up-3 is new.
    assert.equal((await summary(meter.id, c.id)).aggregatedValue, 51);
    assert.equal((await event({ eventName: 'upload', customerId: c.id, value: 5, identifier: 'up-3' })).status, 201);
    assert.equal((await batch(Array.from({ length: 101 }, () => ({ eventName: 'upload', customerId: c.id })))).status, 400);
  });

  it('50 concurrent sends of one identifier: one 201, 49 duplicates, counted once', async () => {
    const meter = await post('/v1/meters', { displayName: 'Exports', eventName: 'export', aggregation: 'sum' });
    const c = await customer('race@example.com');
    const answers = await Promise.all(Array.from({ length: 50 }, () => event({ eventName: 'export', customerId: c.id, value: 3, identifier: 'export-42' })));
    assert.deepEqual(answers.map((a) => a.status).sort(), [...Array.from({ length: 49 }, () => 200), 201]);
    assert.ok(answers.filter((a) => a.status === 200).every((a) => a.body.duplicate === true && a.body.value === 3));
    assert.equal((await summary(meter.id, c.id)).aggregatedValue, 3);
    // And as batches, 10 at once with the same two identifiers.
    const batches = await Promise.all(Array.from({ length: 10 }, () => batch([{ eventName: 'export', customerId: c.id, value: 5, identifier: 'b-1' }, { eventName: 'export', customerId: c.id, value: 7, identifier: 'b-2' }])));
    assert.equal(batches.reduce((sum, b) => sum + b.body.accepted, 0), 2);
    assert.equal((await summary(meter.id, c.id)).aggregatedValue, 15);
  });

  it('aggregations: sum, count, and last (the latest timestamp, ties to the last to arrive); summaries by timestamps between midnights in Sri Lanka', async () => {
    const sum = await post('/v1/meters', { displayName: 'GB out', eventName: 'gb_out', aggregation: 'sum' });
    const count = await post('/v1/meters', { displayName: 'Logins', eventName: 'login', aggregation: 'count' });
    const last = await post('/v1/meters', { displayName: 'Seats', eventName: 'seats', aggregation: 'last' });
    const c = await customer('agg@example.com');
    const at = (iso: string) => iso;
    // 8 and 9 March in Sri Lanka (from 18:30 UTC the day before).
    await batch([
      { eventName: 'gb_out', customerId: c.id, value: 4, timestamp: at('2027-03-08T10:10:00.000Z') },
      { eventName: 'gb_out', customerId: c.id, value: 6, timestamp: at('2027-03-08T18:40:00.000Z') },
      { eventName: 'login', customerId: c.id, value: 99, timestamp: at('2027-03-08T10:10:00.000Z') },
      { eventName: 'login', customerId: c.id, value: 99, timestamp: at('2027-03-09T11:10:00.000Z') },
      { eventName: 'seats', customerId: c.id, value: 12, timestamp: at('2027-03-09T12:00:00.000Z') },
      { eventName: 'seats', customerId: c.id, value: 5, timestamp: at('2027-03-08T10:00:00.000Z') },
    ]);
    await event({ eventName: 'seats', customerId: c.id, value: 9, timestamp: at('2027-03-09T12:00:00.000Z') });
    await event({ eventName: 'seats', customerId: c.id, value: 3, timestamp: at('2027-03-08T11:00:00.000Z') });
    assert.deepEqual([(await summary(sum.id, c.id)).aggregatedValue, (await summary(count.id, c.id)).aggregatedValue, (await summary(last.id, c.id)).aggregatedValue], [10, 2, 9]);
    const range = '&startTime=2027-03-07T18:30:00.000Z&endTime=2027-03-08T18:30:00.000Z';
    const s = await summary(sum.id, c.id, range);
    assert.deepEqual([s.startTime, s.endTime, s.aggregatedValue], ['2027-03-07T18:30:00.000Z', '2027-03-08T18:30:00.000Z', 4]);
    assert.equal((await summary(last.id, c.id, range)).aggregatedValue, 3);
    const odd = await api.request(`/v1/meters/${sum.id}/event_summaries?customerId=${c.id}&startTime=2027-03-08T00:00:00.000Z&endTime=2027-03-08T18:30:00.000Z`, { key: keys.sk_test });
    assert.deepEqual([odd.status, odd.body.fields.map((f: any) => f.path)], [400, ['startTime']]);
    // The message's example, pasted into a query as it is written, is a range start the summary takes.
    const example = /\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:\d\d)/.exec(odd.body.fields[0].message)![0];
    const followed = await api.request(`/v1/meters/${sum.id}/event_summaries?customerId=${c.id}&startTime=${example}&endTime=2027-03-08T18:30:00.000Z`, { key: keys.sk_test });
    assert.deepEqual([followed.status, followed.body.data?.[0].startTime], [200, new Date(example).toISOString()]);
    const half = await api.request(`/v1/meters/${sum.id}/event_summaries?customerId=${c.id}&startTime=2027-03-07T18:30:00.000Z`, { key: keys.sk_test });
    assert.deepEqual([half.status, half.body.fields.map((f: any) => f.path)], [400, ['endTime']]);
    assert.equal((await api.request(`/v1/meters/${sum.id}/event_summaries`, { key: keys.sk_test })).status, 400);
  });

  it('metered prices: an active meter of this mode (else 400 meter_invalid); a licensed price takes none (price_invalid)', async () => {
    const meter = await post('/v1/meters', { displayName: 'Minutes', eventName: 'minute', aggregation: 'sum' });
    const price = await post('/v1/prices', { product: { name: 'Calls' }, unitAmountCents: 2, interval: 'month', usageType: 'metered', meterId: meter.id });
    assert.deepEqual([price.usageType, price.meterId, price.unitAmountCents], ['metered', meter.id, 2]);
    const create = (body: object, key = keys.sk_test) => send('/v1/prices', { product: { name: 'Calls' }, unitAmountCents: 2, interval: 'month', ...body }, key);
    const liveMeter = await post('/v1/meters', { displayName: 'Minutes', eventName: 'minute', aggregation: 'sum' }, keys.sk_live);
    const off = await post('/v1/meters', { displayName: 'Old minutes', eventName: 'old_minute', aggregation: 'sum' });
    await api.request(`/v1/meters/${off.id}`, { method: 'DELETE', key: keys.sk_test, idempotencyKey: ik() });
    for (const body of [{ usageType: 'metered' }, { usageType: 'metered', meterId: 'mtr_000000000000000000000000' }, { usageType: 'metered', meterId: liveMeter.id }, { usageType: 'metered', meterId: off.id }]) {
      const res = await create(body);
      assert.deepEqual([res.status, res.body.reason, res.body.fields[0].path], [400, 'meter_invalid', 'meterId'], JSON.stringify(body));
    }
    const licensed = await create({ unitAmountCents: 1000, meterId: meter.id });
    assert.deepEqual([licensed.status, licensed.body.reason], [400, 'price_invalid']);
  });

  it('billing alerts: made on an active meter of this mode for one customer or all, listed, read, archived; refusals', async () => {
    const meter = await post('/v1/meters', { displayName: 'Jobs', eventName: 'job', aggregation: 'sum' });
    const c = await customer('alerted@example.com');
    const alert = await post('/v1/billing/alerts', { title: '100 jobs', meterId: meter.id, threshold: 100, customerId: c.id });
    assert.deepEqual(alert, { object: 'billing_alert', id: alert.id, mode: 'test', title: '100 jobs', meterId: meter.id, threshold: 100, customerId: c.id, active: true, createdAt: START.toISOString() });
    assert.match(alert.id, /^alrt_[0-9a-z]{24}$/);
    const all = await post('/v1/billing/alerts', { title: 'Everyone', meterId: meter.id, threshold: 5 });
    assert.equal(all.customerId, null);
    assert.deepEqual((await get('/v1/billing/alerts?limit=2')).data.map((a: any) => a.id), [all.id, alert.id]);
    assert.deepEqual(await get(`/v1/billing/alerts/${alert.id}`), alert);
    const archived = await api.request(`/v1/billing/alerts/${alert.id}`, { method: 'DELETE', key: keys.sk_test, idempotencyKey: ik() });
    assert.deepEqual([archived.status, archived.body.active], [200, false]);
    assert.equal((await send('/v1/billing/alerts', { title: 'x', meterId: 'mtr_000000000000000000000000', threshold: 1 })).body.reason, 'meter_invalid');
    assert.equal((await send('/v1/billing/alerts', { title: 'x', meterId: meter.id, threshold: 0 })).status, 400);
    const foreign = await send('/v1/billing/alerts', { title: 'x', meterId: meter.id, threshold: 1, customerId: 'cus_000000000000000000000000' });
    assert.deepEqual([foreign.status, foreign.body.fields[0].path], [400, 'customerId']);
    const live = await api.request(`/v1/billing/alerts/${all.id}`, { key: keys.sk_live });
    assert.deepEqual([live.status, live.body.reason], [404, 'mode_mismatch']);
  });

  it('billing.alert.triggered once per customer and period when usage reaches the threshold, also when sends race', async () => {
    const meter = await post('/v1/meters', { displayName: 'Builds', eventName: 'build', aggregation: 'sum' });
    const alert = await post('/v1/billing/alerts', { title: '10 builds', meterId: meter.id, threshold: 10 });
    const a = await customer('builds-a@example.com');
    const b = await customer('builds-b@example.com');
    await event({ eventName: 'build', customerId: a.id, value: 9 });
    await Promise.all(Array.from({ length: 10 }, () => event({ eventName: 'build', customerId: a.id, value: 1 })));
    await batch([{ eventName: 'build', customerId: b.id, value: 10 }, { eventName: 'build', customerId: b.id, value: 10 }]);
    await event({ eventName: 'build', customerId: b.id, value: 10 });
    const triggered = (await get('/v1/events?type=billing.alert.triggered&limit=100')).data.filter((e: any) => e.data.alertId === alert.id);
    // Once each, however many sends crossed the threshold at once; `value` the usage when it was reached.
    const of = (customerId: string) => triggered.filter((e: any) => e.data.customerId === customerId).map((e: any) => e.data);
    assert.deepEqual(of(b.id), [{ alertId: alert.id, customerId: b.id, meterId: meter.id, value: 20, periodStart: '2027-02-28T18:30:00.000Z' }]);
    const [forA, ...again] = of(a.id);
    assert.deepEqual(again, []);
    assert.deepEqual({ ...forA, value: undefined }, { alertId: alert.id, customerId: a.id, meterId: meter.id, value: undefined, periodStart: '2027-02-28T18:30:00.000Z' });
    assert.ok(forA.value >= 10 && forA.value <= 19, `reached at ${forA.value}`);
    // Archived, an alert triggers no more.
    await api.request(`/v1/billing/alerts/${alert.id}`, { method: 'DELETE', key: keys.sk_test, idempotencyKey: ik() });
    const c = await customer('builds-c@example.com');
    await event({ eventName: 'build', customerId: c.id, value: 50 });
    assert.equal((await get('/v1/events?type=billing.alert.triggered&limit=100')).data.filter((e: any) => e.data.customerId === c.id).length, 0);
  });
});
