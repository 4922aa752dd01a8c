import assert from 'node:assert/strict';
import { startApi, type TestApi } from '../support/api';

describe('rate limit', () => {
  let api: TestApi;
  let key: string;

  before(async () => {
    api = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
    key = (await api.merchant()).keys.sk_test;
  });
  after(() => api.close());

  it('sends X-RateLimit-* on successes and answers 429 RATE_LIMITED with Retry-After over the limit', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await api.request('/v1/account', { key });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-ratelimit-limit'), '5');
      assert.equal(res.headers.get('x-ratelimit-remaining'), String(4 - i));
      const reset = Number(res.headers.get('x-ratelimit-reset'));
      assert.ok(reset >= 1 && reset <= 60, String(reset));
    }
    const over = await api.request('/v1/account', { key });
    assert.equal(over.status, 429);
    assert.equal(over.body.code, 'RATE_LIMITED');
    assert.equal(over.body.reason, undefined);
    assert.equal(over.body.docUrl, `${api.config.docsUrl}#rate_limited`);
    const retryAfter = Number(over.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
  });

  it('counts each endpoint separately', async () => {
    const other = await api.request('/v1/customers', { key });
    assert.equal(other.status, 200);
    assert.equal(other.headers.get('x-ratelimit-remaining'), '4');
  });

  it('counts unauthenticated requests too (per address, before the key is read)', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await api.request('/v1/openapi.json')).status, 200);
    assert.equal((await api.request('/v1/openapi.json')).status, 429);
  });

  it('behind TRUST_PROXY, reads the address the proxy appended, not one the client forged', async () => {
    const proxied = await api.sibling({ TRUST_PROXY: 'true', RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const statuses: number[] = [];
      // The client forges the first entry; the proxy appends the real address last.
      for (let i = 0; i < 4; i++) statuses.push((await proxied.request('/v1/account', { key, headers: { 'x-forwarded-for': `9.9.9.${i}, 203.0.113.7` } })).status);
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      const other = await proxied.request('/v1/account', { key, headers: { 'x-forwarded-for': '9.9.9.9, 203.0.113.8' } });
      assert.equal(other.status, 200, 'another real address has its own count');
    } finally {
      await proxied.close();
    }
  });

  it('shares one count between API processes with RATE_LIMIT_STORE=postgres', async () => {
    const a = await api.sibling({ RATE_LIMIT_STORE: 'postgres', RATE_LIMIT_PER_MINUTE: '4' });
    const b = await api.sibling({ RATE_LIMIT_STORE: 'postgres', RATE_LIMIT_PER_MINUTE: '4' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await (i % 2 ? b : a).request('/v1/customers', { key })).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
