import assert from 'node:assert/strict';
import { startApi, ik, type TestApi } from '../support/api';

describe('list pagination', () => {
  let api: TestApi;
  let key: string;
  const created: string[] = [];

  before(async () => {
    api = await startApi();
    key = (await api.merchant()).keys.sk_test;
    for (let i = 0; i < 130; i++) {
      const res = await api.request('/v1/customers', { key, body: { email: `c${i}@example.com` }, idempotencyKey: ik() });
      created.push(res.body.id);
    }
  });
  after(() => api.close());

  async function walk(limit?: number): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const params = new URLSearchParams();
      if (limit !== undefined) params.set('limit', String(limit));
      if (cursor) params.set('cursor', cursor);
      const res = await api.request(`/v1/customers?${params}`, { key });
      assert.equal(res.status, 200);
      assert.equal(res.body.object, 'list');
      ids.push(...res.body.data.map((c: { id: string }) => c.id));
      assert.equal(res.body.hasMore, res.body.nextCursor !== null);
      if (res.body.hasMore) assert.equal(res.body.nextCursor, res.body.data.at(-1).id);
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor);
    return { ids, pages };
  }

  it('walks more than 100 objects newest first, each exactly once (default limit 25)', async () => {
    const { ids, pages } = await walk();
    assert.equal(pages, 6);
    assert.deepEqual(ids, [...created].reverse());
  });

  it('takes limit up to 100', async () => {
    const { ids, pages } = await walk(100);
    assert.equal(pages, 2);
    assert.deepEqual(ids, [...created].reverse());
    const one = await walk(1);
    assert.equal(one.pages, 130);
  });

  it('answers hasMore false and nextCursor null on the last page', async () => {
    const res = await api.request(`/v1/customers?limit=100&cursor=${created[30]}`, { key });
    assert.equal(res.body.data.length, 30);
    assert.equal(res.body.hasMore, false);
    assert.equal(res.body.nextCursor, null);
  });

  const invalid: [string, string][] = [
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=2.5', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=', 'limit'],
    ['limit=10&limit=20', 'limit'],
    ['cursor=not-a-cursor', 'cursor'],
    ['cursor=cus_short', 'cursor'],
    ['cursor=pay_0000000000000000000000000', 'cursor'],
    ['sort=asc', ''],
    ['email=a', 'email'],
  ];
  for (const [query, path] of invalid) {
    it(`answers 400 for ${query}`, async () => {
      const res = await api.request(`/v1/customers?${query}`, { key });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      assert.ok(res.body.fields.some((f: { path: string }) => f.path === path), JSON.stringify(res.body.fields));
    });
  }

  it('never rounds a query integer: one JavaScript cannot hold exactly is not an integer', async () => {
    for (const limit of ['9007199254740993', '-9007199254740993', '99999999999999999999']) {
      const res = await api.request(`/v1/customers?limit=${limit}`, { key });
      assert.equal(res.status, 400, limit);
      assert.deepEqual(res.body.fields, [{ path: 'limit', message: 'Must be an integer.' }], limit);
    }
  });

  it('documents each list\'s cursor as an id of its own kind, which is what the list takes', async () => {
    const doc = (await api.request('/v1/openapi.json')).body;
    const lists = Object.entries(doc.paths as Record<string, any>).filter(([, ops]) => ops.get?.parameters.some((p: { name: string }) => p.name === 'cursor'));
    assert.ok(lists.length >= 5);
    const foreign = 'pay_000000000000000000000000';
    for (const [path, ops] of lists) {
      const cursor = new RegExp(ops.get.parameters.find((p: { name: string }) => p.name === 'cursor').schema.pattern, 'u');
      if (path === '/v1/payments') {
        assert.ok(cursor.test(foreign));
        continue;
      }
      // Another list's id fits the spec's general cursor pattern, but not this list's.
      assert.ok(!cursor.test(foreign), path);
      if (!path.includes('{')) assert.equal((await api.request(`${path}?cursor=${foreign}`, { key })).status, 400, path);
    }
    const customers = doc.paths['/v1/customers'].get.parameters.find((p: { name: string }) => p.name === 'cursor').schema.pattern;
    assert.ok(new RegExp(customers, 'u').test(created[0]!));
  });

  it('filters by email, case-insensitively', async () => {
    const res = await api.request('/v1/customers?email=C7@EXAMPLE.COM', { key });
    assert.deepEqual(res.body.data.map((c: { email: string }) => c.email), ['c7@example.com']);
  });
});
