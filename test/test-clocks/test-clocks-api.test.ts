// Test clocks over HTTP, as DESIGN.md fixes them: create (frozenTime within two years of now, past
// or future), list, get, advance (later, at most two years on; 409 while advancing), delete; live
// keys refused; customers on a clock.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';

const PATH = '/v1/test_helpers/test_clocks';

describe('test clocks API', () => {
  let api: TestApi;
  let keys: MerchantKeys;

  // Virtual time starts at 10:00 on 15 January 2027 in Colombo.
  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());

  const create = (body: unknown, key = keys.sk_test) => api.request(PATH, { key, body, idempotencyKey: ik() });
  const advance = (id: string, frozenTime: string, key = keys.sk_test) => api.request(`${PATH}/${id}/advance`, { key, body: { frozenTime }, idempotencyKey: ik() });
  const get = (id: string) => api.request(`${PATH}/${id}`, { key: keys.sk_test });

  it('creates a ready clock at the time asked, every field present', async () => {
    const res = await create({ frozenTime: '2027-01-31T04:30:00.000Z', name: 'Month ends' });
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.id, /^clock_[0-9a-z]{24}$/);
    assert.deepEqual(res.body, { object: 'test_clock', id: res.body.id, mode: 'test', name: 'Month ends', frozenTime: '2027-01-31T04:30:00.000Z', status: 'ready', createdAt: '2027-01-15T04:30:00.000Z' });
    assert.deepEqual((await get(res.body.id)).body, res.body);
  });

  it('a clock\'s time is within two years of now, past or future; the name up to 120', async () => {
    const reason = async (body: unknown) => (await create(body)).body.reason ?? (await create(body)).status;
    assert.equal(await reason({ frozenTime: '2029-01-15T04:30:00.001Z' }), 'billing_date_invalid');
    assert.equal(await reason({ frozenTime: '2025-01-15T04:29:59.999Z' }), 'billing_date_invalid');
    assert.equal((await create({ frozenTime: '2029-01-15T04:30:00.000Z' })).status, 201);
    assert.equal((await create({ frozenTime: '2025-01-15T04:30:00.000Z' })).status, 201);
    assert.equal((await create({ frozenTime: 'tomorrow' })).status, 400);
    assert.equal((await create({ frozenTime: '2027-02-01T00:00:00.000Z', name: 'n'.repeat(121) })).status, 400);
    assert.equal((await create({})).status, 400);
  });

  it('advances: status advancing, then ready at the new time; 409 while advancing; only forward, at most two years on', async () => {
    const clock = (await create({ frozenTime: '2027-01-31T04:30:00.000Z' })).body;
    assert.equal((await advance(clock.id, '2027-01-31T04:30:00.000Z')).body.reason, 'billing_date_invalid');
    assert.equal((await advance(clock.id, '2027-01-01T00:00:00.000Z')).body.reason, 'billing_date_invalid');
    assert.equal((await advance(clock.id, '2029-01-31T04:30:00.001Z')).body.reason, 'billing_date_invalid');
    const res = await advance(clock.id, '2027-03-31T04:30:00.000Z');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.status, res.body.frozenTime], ['advancing', '2027-01-31T04:30:00.000Z']);
    await api.workflows.settle();
    assert.deepEqual([(await get(clock.id)).body.status, (await get(clock.id)).body.frozenTime], ['ready', '2027-03-31T04:30:00.000Z']);
    assert.equal((await advance(clock.id, '2029-03-31T04:30:00.000Z')).status, 200, 'two years on from the clock\'s own time');
    await api.workflows.settle();
    assert.equal((await get(clock.id)).body.frozenTime, '2029-03-31T04:30:00.000Z');
    // An advance still under way (its workflow waiting on a customer's): 409 until it is ready.
    await api.knex('test_clocks').where({ id: clock.id }).update({ advancing_to: new Date('2029-04-30T04:30:00.000Z') });
    const again = await advance(clock.id, '2029-05-31T04:30:00.000Z');
    assert.deepEqual([again.status, again.body.code, (await get(clock.id)).body.status], [409, 'CONFLICT', 'advancing']);
  });

  it('lists newest first, a page at a time; a deleted clock is answered once, then gone', async () => {
    const { keys: own } = await api.merchant();
    const made = [];
    for (const name of ['a', 'b', 'c']) made.push((await create({ frozenTime: '2027-02-01T00:00:00.000Z', name }, own.sk_test)).body);
    const deleted = await api.request(`${PATH}/${made[1].id}`, { method: 'DELETE', key: own.sk_test });
    assert.deepEqual(deleted.body, { ...made[1], deleted: true });
    const list = (await api.request(`${PATH}?limit=1`, { key: own.sk_test })).body;
    assert.deepEqual([list.data.map((c: { name: string }) => c.name), list.hasMore], [['c'], true]);
    const rest = (await api.request(`${PATH}?cursor=${list.nextCursor}`, { key: own.sk_test })).body;
    assert.deepEqual(rest.data.map((c: { name: string }) => c.name), ['a']);
    assert.equal((await api.request(`${PATH}/${made[1].id}`, { key: own.sk_test })).status, 404);
    assert.equal((await api.request(`${PATH}/${made[1].id}`, { method: 'DELETE', key: own.sk_test })).status, 404);
    assert.equal((await api.request(`${PATH}/${made[1].id}/advance`, { key: own.sk_test, body: { frozenTime: '2027-03-01T00:00:00.000Z' }, idempotencyKey: ik() })).status, 404);
  });

  it('a live key: 403 on every test clock endpoint', async () => {
    const clock = (await create({ frozenTime: '2027-02-01T00:00:00.000Z' })).body;
    const answers = await Promise.all([
      create({ frozenTime: '2027-02-01T00:00:00.000Z' }, keys.sk_live),
      api.request(PATH, { key: keys.sk_live }),
      api.request(`${PATH}/${clock.id}`, { key: keys.sk_live }),
      advance(clock.id, '2027-03-01T00:00:00.000Z', keys.sk_live),
      api.request(`${PATH}/${clock.id}`, { method: 'DELETE', key: keys.sk_live }),
    ]);
    assert.deepEqual(answers.map((a) => [a.status, a.body.reason]), Array(5).fill([403, 'key_not_permitted']));
  });

  it('customers on a clock: testClockId shown, made in the clock\'s time; a clock of another account or deleted is refused; an existing customer keeps its clock', async () => {
    const clock = (await create({ frozenTime: '2027-02-01T00:00:00.000Z' })).body;
    const customer = async (body: unknown, key = keys.sk_test) => api.request('/v1/customers', { key, body, idempotencyKey: ik() });
    const made = await customer({ email: 'clocked@example.com', testClockId: clock.id });
    assert.deepEqual([made.status, made.body.testClockId, made.body.createdAt], [201, clock.id, '2027-02-01T00:00:00.000Z']);
    const wall = (await customer({ email: 'wall@example.com' })).body;
    assert.deepEqual([wall.testClockId, wall.createdAt], [null, api.clock.now().toISOString()]);
    assert.equal((await customer({ email: 'clocked@example.com', name: 'Later' })).body.testClockId, clock.id);
    const { keys: other } = await api.merchant();
    const theirs = (await create({ frozenTime: '2027-02-01T00:00:00.000Z' }, other.sk_test)).body;
    assert.equal((await customer({ email: 'x@example.com', testClockId: theirs.id })).status, 404);
    assert.deepEqual([(await customer({ email: 'y@example.com', testClockId: clock.id }, keys.sk_live)).status], [404]);
    await api.request(`${PATH}/${clock.id}`, { method: 'DELETE', key: keys.sk_test });
    assert.equal((await customer({ email: 'z@example.com', testClockId: clock.id })).status, 404);
    assert.equal((await customer({ email: 'z@example.com', testClockId: 'clock_x' })).status, 400);
  });

  it('an advance the process stopped in goes on to its target at the next boot (the resumer)', async () => {
    const clock = (await create({ frozenTime: '2027-02-01T00:00:00.000Z' })).body;
    // As a process that died after answering the advance, before its workflow ran.
    await api.knex('test_clocks').where({ id: clock.id }).update({ advancing_to: new Date('2027-05-01T00:00:00.000Z') });
    const restarted = await api.sibling();
    try {
      await restarted.workflows.settle();
      const after = (await restarted.request(`${PATH}/${clock.id}`, { key: keys.sk_test })).body;
      assert.deepEqual([after.status, after.frozenTime], ['ready', '2027-05-01T00:00:00.000Z']);
    } finally {
      await restarted.close();
    }
  });
});
