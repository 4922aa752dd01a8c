import assert from 'node:assert/strict';
import { startApi, type TestApi } from '../support/api';

describe('HTTP platform', () => {
  let api: TestApi;
  let key: string;

  before(async () => {
    api = await startApi({ env: { CORS_ORIGINS: 'https://dashboard.example' } });
    key = (await api.merchant()).keys.sk_test;
  });
  after(() => api.close());

  it('puts x-trace-id on every answer, and the same value in error bodies', async () => {
    const ok = await api.request('/v1/account', { key });
    assert.match(ok.headers.get('x-trace-id') ?? '', /^tr_[0-9a-f]{24}$/);
    const err = await api.request('/v1/nothing');
    assert.equal(err.body.traceId, err.headers.get('x-trace-id'));
    const page = await fetch(`${api.url}/docs/errors`);
    assert.ok(page.headers.get('x-trace-id'));
    assert.notEqual(ok.headers.get('x-trace-id'), err.headers.get('x-trace-id'));
  });

  const outside: [string, string][] = [
    ['GET', '/'],
    ['GET', '/v1'],
    ['GET', '/v1/'],
    ['GET', '/v1/nothing'],
    ['GET', '/V1/account'],
    ['GET', '/v1/Account'],
    ['GET', '/v1/account/'],
    ['GET', '/v2/account'],
    ['POST', '/v1/account'],
    ['DELETE', '/v1/customers'],
    ['PUT', '/v1/customers'],
    ['PATCH', '/v1/account'],
    ['GET', '/v1/customers/cus_000000000000000000000000/extra'],
  ];
  for (const [method, path] of outside) {
    it(`answers 404 unknown_endpoint for ${method} ${path}`, async () => {
      const res = await api.request(path, { method, key, headers: { 'content-type': 'application/json' }, raw: method === 'GET' ? undefined : '{}' });
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'NOT_FOUND');
      assert.equal(res.body.reason, 'unknown_endpoint');
      assert.equal(res.body.docUrl, `${api.config.docsUrl}#unknown_endpoint`);
      assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    });
  }

  it('answers 404 for a path id that cannot be an id of the kind', async () => {
    const res = await api.request('/v1/customers/pay_000000000000000000000000', { key });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'NOT_FOUND');
    assert.equal(res.body.reason, undefined);
  });

  it('answers 404 NOT_FOUND for a path id that is not valid percent-encoding', async () => {
    const res = await api.request('/v1/customers/cus_%E0%A4%A', { key });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'NOT_FOUND');
    assert.equal(res.body.reason, undefined);
  });

  it('answers HEAD on a read as it answers GET, without the body', async () => {
    const get = await api.request('/v1/account', { key });
    const head = await api.request('/v1/account', { key, method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers.get('content-length'), get.headers.get('content-length'));
  });

  it('answers cross-origin browser requests only for the service\'s own origins', async () => {
    const own = await api.request('/v1/account', { key, headers: { origin: api.url } });
    assert.equal(own.status, 200);
    assert.equal(own.headers.get('access-control-allow-origin'), api.url);
    const configured = await api.request('/v1/account', { key, headers: { origin: 'https://dashboard.example' } });
    assert.equal(configured.headers.get('access-control-allow-origin'), 'https://dashboard.example');
    const foreign = await api.request('/v1/account', { key, headers: { origin: 'https://shop.example' } });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.reason, 'origin_not_allowed');
    assert.equal(foreign.headers.get('access-control-allow-origin'), null);
  });

  it('answers preflights for own origins and refuses others', async () => {
    const preflight = (origin: string, path = '/v1/customers') =>
      fetch(`${api.url}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, idempotency-key' } });
    const own = await preflight(api.url);
    assert.equal(own.status, 204);
    assert.equal(own.headers.get('access-control-allow-origin'), api.url);
    assert.match(own.headers.get('access-control-allow-headers') ?? '', /Idempotency-Key/);
    const foreign = await preflight('https://shop.example');
    assert.equal(foreign.status, 403);
    const doc = await preflight('https://shop.example', '/v1/openapi.json');
    assert.equal(doc.status, 204);
    assert.equal(doc.headers.get('access-control-allow-origin'), '*');
  });

  it('answers every error as JSON, including 500 INTERNAL without details', async () => {
    // Break the database under a running server: the request fails inside the handler.
    await api.knex.raw('alter table customers rename to customers_away');
    try {
      const res = await api.request('/v1/customers', { key });
      assert.equal(res.status, 500);
      assert.equal(res.body.code, 'INTERNAL');
      assert.equal(res.body.docUrl, `${api.config.docsUrl}#internal`);
      assert.doesNotMatch(res.text, /customers/);
    } finally {
      await api.knex.raw('alter table customers_away rename to customers');
    }
  });
});
