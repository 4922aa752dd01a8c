import assert from 'node:assert/strict';
import { startApi, type TestApi } from '../support/api';
import { REASONS, type Reason } from '../../domain/errors';
import { inlineCode } from '../../web/html';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

describe('OpenAPI document and API reference', () => {
  let api: TestApi;
  let key: string;
  let doc: any;

  before(async () => {
    api = await startApi();
    key = (await api.merchant()).keys.sk_test;
    doc = (await api.request('/v1/openapi.json')).body;
  });
  after(() => api.close());

  it('is served without a key and is a valid OpenAPI 3.1 document', async () => {
    assert.equal(doc.openapi, '3.1.0');
    // The validator is an ES module.
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const validator = new Validator();
    const result = await validator.validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1));
    assert.equal(validator.version, '3.1');
  });

  it('bounds every integer, in every body, query, answer and header, within what JavaScript holds exactly', () => {
    const unbounded: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (node === null || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      const exact = (bound: unknown) => typeof bound === 'number' && Number.isSafeInteger(bound);
      if (types.includes('integer') && !(exact(schema.maximum) && exact(schema.minimum))) unbounded.push(at);
      for (const [key, value] of Object.entries(schema)) walk(value, `${at}/${key}`);
    };
    walk(doc, '#');
    assert.deepEqual(unbounded, []);
    // The walk sees what it must: the list's `limit` and a tier's `upTo` are among the integers.
    const limit = doc.paths['/v1/customers'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    assert.deepEqual([limit.schema.minimum, limit.schema.maximum], [1, 100]);
    const upTo = doc.paths['/v1/prices'].post.requestBody.content['application/json'].schema.properties.tiers.items.properties.upTo;
    assert.equal(upTo.anyOf[0].maximum, 1_000_000_000);
  });

  it('is readable from any origin', async () => {
    const res = await api.request('/v1/openapi.json', { headers: { origin: 'https://elsewhere.example' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
  });

  it('describes every route the app mounts, with the schemas it validates with', () => {
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${path}`)));
    const mounted = api.server.app.routes.map((r) => `${r.method} ${r.path}`);
    assert.deepEqual([...documented].sort(), [...mounted].sort());
    for (const route of api.server.app.routes) {
      const op = doc.paths[route.path][route.method.toLowerCase()];
      assert.equal(op.operationId, route.operationId);
      if (route.body) assert.ok(op.requestBody, route.operationId);
      if (route.idempotent) assert.ok(op.parameters.some((p: { name: string; required: boolean }) => p.name === 'Idempotency-Key' && p.required));
      for (const status of Object.keys(route.responses)) assert.ok(op.responses[status], `${route.operationId} ${status}`);
      assert.deepEqual(op.security, route.auth === 'public' ? [] : [{ apiKey: [] }]);
    }
    const create = doc.paths['/v1/customers'].post;
    assert.equal(create.requestBody.content['application/json'].schema.additionalProperties, false);
    assert.deepEqual(create.requestBody.content['application/json'].schema.required, ['email']);
    assert.equal(create.responses['201'].content['application/json'].schema.$ref, '#/components/schemas/Customer');
    assert.ok(doc.components.schemas.Error.properties.reason.enum.includes('idempotency_key_reused'));
    assert.ok(create.responses['409'].description.includes('idempotency_key_in_progress'));
    assert.ok(doc.paths['/v1/customers'].get.parameters.some((p: { name: string; in: string }) => p.name === 'limit' && p.in === 'query'));
  });

  it('documents only paths that exist: each documented operation answers, never unknown_endpoint', async () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops as object)) {
        const concrete = path.replace('{id}', 'cus_000000000000000000000000');
        const res = await api.request(concrete, { method: method.toUpperCase(), key, headers: { 'content-type': 'application/json' }, raw: method === 'get' ? undefined : '{}' });
        assert.notEqual(res.body?.reason, 'unknown_endpoint', `${method} ${path}`);
      }
    }
  });

  it('answers match their documented schemas', async () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const schemaOf = (path: string, method: string, status: number) => {
      const s = doc.paths[path][method].responses[status].content['application/json'].schema;
      return JSON.parse(JSON.stringify(s).replace(/"#\/components/g, '"doc#/components'));
    };
    const check = (schema: object, body: unknown) => {
      const validate = ajv.compile(schema);
      assert.ok(validate(body), JSON.stringify(validate.errors));
    };
    const created = await api.request('/v1/customers', { key, body: { email: 'schema@example.com', phone: '0771234567' }, idempotencyKey: 'schema-check-1' });
    check(schemaOf('/v1/customers', 'post', 201), created.body);
    check(schemaOf('/v1/customers', 'get', 200), (await api.request('/v1/customers', { key })).body);
    check(schemaOf('/v1/account', 'get', 200), (await api.request('/v1/account', { key })).body);
    check(schemaOf('/v1/customers', 'post', 400), (await api.request('/v1/customers', { key, body: {}, idempotencyKey: 'schema-check-2' })).body);
  });

  it('links each new object to the operations that take its id, and the links lead to it', async () => {
    const operations = new Map<string, { path: string; method: string }>();
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>)) {
      for (const [method, op] of Object.entries(ops)) operations.set(op.operationId, { path, method });
    }
    const links = new Map<string, Record<string, { operationId: string; parameters: Record<string, string> }>>();
    for (const ops of Object.values(doc.paths as Record<string, Record<string, any>>)) {
      for (const op of Object.values(ops)) {
        for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
          if (!response.links) continue;
          links.set(`${op.operationId} ${status}`, response.links);
          for (const link of Object.values(response.links as Record<string, { operationId: string; parameters: Record<string, string> }>)) {
            const target = operations.get(link.operationId);
            assert.ok(target, link.operationId);
            assert.deepEqual(Object.keys(link.parameters), [...target.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]), link.operationId);
          }
        }
      }
    }
    assert.deepEqual(Object.keys(links.get('createCheckout 201') ?? {}).sort(), ['getCheckout', 'getPayment']);
    assert.ok(links.get('createCustomer 201')?.getCustomer);
    assert.ok(links.get('createWebhookEndpoint 201')?.pingWebhookEndpoint);
    assert.ok(links.get('pingWebhookEndpoint 202')?.resendWebhookDelivery);
    // Followed by hand: the expressions pick the ids that the linked operations answer.
    const created = (await api.request('/v1/checkouts', { key, body: { amountCents: 5000, description: 'Linked' }, idempotencyKey: 'links-check-1' })).body;
    for (const link of Object.values(links.get('createCheckout 201')!)) {
      const pointer = link.parameters.id!.replace('$response.body#', '');
      const id = pointer.split('/').slice(1).reduce((value: any, part) => value[part], created);
      const res = await api.request(operations.get(link.operationId)!.path.replace('{id}', id), { key });
      assert.equal(res.status, 200, link.operationId);
      assert.equal(res.body.id, id);
    }
  });

  it('serves an API reference page rendered from the document', async () => {
    const res = await fetch(`${api.url}/docs/api`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/html/);
    const html = await res.text();
    for (const route of api.server.app.routes) assert.ok(html.includes(`id="${route.operationId}"`), route.operationId);
    assert.ok(html.includes('id="schema-Customer"'));
  });

  it('serves {docs_url}: a page explaining every code and reason, each at its docUrl anchor with its cause and what to do', async () => {
    const res = await fetch(api.config.docsUrl);
    assert.equal(res.status, 200);
    const html = await res.text();
    for (const reason of Object.keys(REASONS) as Reason[]) {
      const row = new RegExp(`<tr id="${reason}">(.*?)</tr>`).exec(html)?.[1];
      assert.ok(row, reason);
      for (const text of [REASONS[reason].when, REASONS[reason].fix]) assert.ok(row.includes(inlineCode(text)), `${reason}: ${text}`);
    }
    for (const code of ['validation_failed', 'unauthenticated', 'forbidden', 'not_found', 'conflict', 'rate_limited', 'internal', 'not_supported', 'service_unavailable']) {
      assert.ok(html.includes(`id="${code}"`), code);
    }
  });
});
