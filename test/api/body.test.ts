import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { startApi, ik, type TestApi } from '../support/api';
import { BODY_LIMIT_BYTES, BODY_MAX_DEPTH } from '../../api/platform/body';

describe('request bodies', () => {
  let api: TestApi;
  let key: string;

  before(async () => {
    api = await startApi();
    key = (await api.merchant()).keys.sk_test;
  });
  after(() => api.close());

  const post = (options: { raw?: string; body?: unknown; headers?: Record<string, string> }) =>
    api.request('/v1/customers', { method: 'POST', key, idempotencyKey: ik(), ...options });

  it('needs Content-Type: application/json on writes (400 json_required)', async () => {
    const missing = await post({ raw: '{"email":"a@example.com"}' });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.reason, 'json_required');
    const form = await post({ raw: 'email=a@example.com', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(form.body.reason, 'json_required');
    const text = await post({ raw: '{"email":"a@example.com"}', headers: { 'content-type': 'text/plain' } });
    assert.equal(text.body.reason, 'json_required');
    const charset = await post({ raw: '{"email":"charset@example.com"}', headers: { 'content-type': 'application/json; charset=utf-8' } });
    assert.equal(charset.status, 201);
  });

  it('answers 400 invalid_json for a body that does not parse', async () => {
    for (const raw of ['{', '{"email":', "{'email':'a@example.com'}", '', 'undefined']) {
      const res = await post({ raw, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400, raw);
      assert.equal(res.body.reason, 'invalid_json', raw);
    }
  });

  it('refuses a body that is not an object', async () => {
    for (const raw of ['[]', '"text"', '42', 'null']) {
      const res = await post({ raw, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400, raw);
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      assert.equal(res.body.reason, undefined);
      assert.deepEqual(res.body.fields.map((f: { path: string }) => f.path), [''], raw);
    }
  });

  it('answers 413 body_too_large over 256 kB, and accepts a body of exactly the limit', async () => {
    const overhead = JSON.stringify({ email: 'big@example.com', name: '' }).length;
    const filler = (size: number) => JSON.stringify({ email: 'big@example.com', name: 'x'.repeat(size - overhead) });
    assert.equal(filler(BODY_LIMIT_BYTES).length, BODY_LIMIT_BYTES);
    const atLimit = await post({ raw: filler(BODY_LIMIT_BYTES), headers: { 'content-type': 'application/json' } });
    assert.equal(atLimit.status, 400, 'at the limit the body is read (and then fails validation: name is too long)');
    assert.ok(atLimit.body.fields.some((f: { path: string }) => f.path === 'name'));
    const over = await post({ raw: filler(BODY_LIMIT_BYTES + 1), headers: { 'content-type': 'application/json' } });
    assert.equal(over.status, 413);
    assert.equal(over.body.code, 'VALIDATION_FAILED');
    assert.equal(over.body.reason, 'body_too_large');
  });

  it('enforces the limit while reading a chunked body with no Content-Length', async () => {
    const answer = await new Promise<{ status: number; body: any; bytesSent: number }>((resolve, reject) => {
      const req = httpRequest(`${api.url}/v1/customers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': ik(), 'transfer-encoding': 'chunked' },
      });
      let bytesSent = 0;
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), bytesSent }));
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(16 * 1024, 'a');
      // Send far more than the limit, in pieces; the server must answer without reading it all.
      const pump = () => {
        while (bytesSent < BODY_LIMIT_BYTES * 8) {
          bytesSent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      req.write('{"email":"');
      pump();
    });
    assert.equal(answer.status, 413);
    assert.equal(answer.body.reason, 'body_too_large');
  });

  it('refuses unknown keys with an entry whose path is empty (and names nested ones by their object)', async () => {
    const res = await post({ body: { email: 'a@example.com', nickname: 'x', extra: 1 } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'VALIDATION_FAILED');
    const unknown = res.body.fields.filter((f: { path: string }) => f.path === '');
    assert.equal(unknown.length, 2);
    assert.match(unknown.map((f: { message: string }) => f.message).join(' '), /nickname.*extra|extra.*nickname/);
  });

  it('names every offending path in fields', async () => {
    const res = await post({ body: { name: 5, phone: 'x'.repeat(30), locale: 'fr' } });
    assert.equal(res.status, 400);
    // The phone breaks two rules (length and form), each named.
    const paths = new Set(res.body.fields.map((f: { path: string }) => f.path));
    assert.deepEqual([...paths].sort(), ['email', 'locale', 'name', 'phone']);
  });

  it('validates a body-less write strictly: no body, or an empty object', async () => {
    // Customers have no body-less write yet; the rule is exercised on the validator in validation.test.ts.
    const res = await post({ body: {} });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.fields, [{ path: 'email', message: 'Required.' }]);
  });

  it('refuses JSON nested deeper than BODY_MAX_DEPTH with 400 on every kind of write, and takes bodies at the limit', async () => {
    const nested = (depth: number, inner = '1') => `${'{"a":'.repeat(depth - 1)}[${inner}]${'}'.repeat(depth - 1)}`;
    // Brackets inside strings (and escaped quotes) are text, not nesting.
    const deepText = JSON.stringify({ email: 'text@example.com', name: `"${'['.repeat(100)}\\` });
    const json = { 'content-type': 'application/json' };
    const routes = ['/v1/customers', '/v1/checkouts', '/v1/refunds', '/v1/prices', '/v1/webhook_endpoints', '/v1/subscriptions'];
    for (const path of routes) {
      for (const raw of [nested(3000), `{"email":${nested(BODY_MAX_DEPTH + 1)}}`]) {
        const res = await api.request(path, { method: 'POST', key, idempotencyKey: ik(), raw, headers: json });
        assert.equal(res.status, 400, `${path}: ${res.text}`);
        assert.equal(res.body.code, 'VALIDATION_FAILED', path);
        assert.equal(res.body.reason, undefined, path);
        assert.deepEqual(res.body.fields, [{ path: '', message: `Objects and arrays nested deeper than ${BODY_MAX_DEPTH} levels.` }], path);
        assert.equal(res.body.traceId, res.headers.get('x-trace-id'));
      }
    }
    // At the limit the body goes on to validation, which names the field as usual.
    const atLimit = await post({ raw: `{"email":"limit@example.com","name":${nested(BODY_MAX_DEPTH - 1)}}`, headers: json });
    assert.equal(atLimit.status, 400, atLimit.text);
    assert.deepEqual(atLimit.body.fields.map((f: { path: string }) => f.path), ['name']);
    const text = await post({ raw: deepText, headers: json });
    assert.equal(text.status, 201, text.text);
    assert.equal(text.body.name, JSON.parse(deepText).name);
  });
});
