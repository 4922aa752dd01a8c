// GET /healthz and GET /readyz: no key, no rate limit, outside /v1 and the OpenAPI document;
// /readyz fails, naming the check, when the database does not answer, a migration is missing or
// the orchestration does not answer.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { listen, type RunningServer } from '../../api/server';
import { connect } from '../../db/connection';
import { observeOrchestration } from '../../workers/observability';
import { startApiWithMerchant, type TestApi } from '../support/api';

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function getJson(url: string): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

describe('health probes', () => {
  let api: TestApi;
  let key: string;

  before(async () => {
    const started = await startApiWithMerchant({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
    api = started.api;
    key = started.keys.sk_test;
  });
  after(() => api?.close());

  it('/healthz answers 200 {"status":"ok"} without a key', async () => {
    const res = await getJson(`${api.url}/healthz`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok' });
    assert.equal(res.headers.get('cache-control'), 'no-store');
  });

  it('/readyz answers 200 when the database, the migrations and the orchestration are ready', async () => {
    const res = await getJson(`${api.url}/readyz`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { status: 'ready', checks: { database: { status: 'ok' }, migrations: { status: 'ok' }, orchestration: { status: 'ok' } } });
  });

  it('are not rate-limited, while the API is', async () => {
    for (let i = 0; i < 5; i++) {
      for (const path of ['/healthz', '/readyz', '/metrics']) {
        const res = await fetch(`${api.url}${path}`);
        assert.equal(res.status, 200, `${path} answer ${i + 1}`);
        assert.equal(res.headers.get('x-ratelimit-limit'), null);
      }
    }
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await api.request('/v1/account', { key })).status);
    assert.deepEqual(statuses, [200, 200, 429], 'the API on the same server is limited to 2 a minute');
  });

  it('are not part of the API: not under /v1, not in the OpenAPI document', async () => {
    const doc = (await api.request('/v1/openapi.json')).body;
    const paths = Object.keys(doc.paths);
    for (const probe of ['/healthz', '/readyz', '/metrics']) {
      assert.ok(!paths.some((p) => p.endsWith(probe)), `${probe} is not in the document`);
      assert.equal((await api.request(`/v1${probe}`)).status, 404);
    }
  });

  it('/readyz answers 503 naming the migration that is not applied', async () => {
    const [last] = await api.knex('knex_migrations').orderBy('id', 'desc').limit(1);
    await api.knex('knex_migrations').where({ id: last.id }).del();
    try {
      const res = await getJson(`${api.url}/readyz`);
      assert.equal(res.status, 503);
      assert.equal(res.body.status, 'not_ready');
      assert.deepEqual(res.body.checks.migrations, { status: 'failed', message: `migrations not applied: ${last.name}` });
      assert.deepEqual(res.body.checks.database, { status: 'ok' });
      assert.equal((await fetch(`${api.url}/healthz`)).status, 200, 'still alive');
    } finally {
      await api.knex('knex_migrations').insert(last);
    }
    assert.equal((await fetch(`${api.url}/readyz`)).status, 200);
  });

  describe('on a server whose parts do not answer', () => {
    const servers: RunningServer[] = [];
    const closers: (() => Promise<void>)[] = [];
    after(async () => {
      for (const server of servers) await server.close();
      for (const close of closers) await close();
    });

    async function serve(deps: Partial<Parameters<typeof listen>[0]>): Promise<RunningServer> {
      const server = await listen({ db: api.knex, config: api.config, log: pino({ level: 'silent' }), orchestration: api.service.orchestration.port, ...deps }, 0);
      servers.push(server);
      return server;
    }

    it('/readyz answers 503 when the database is unreachable; /healthz stays 200', async () => {
      const db = connect(`postgres://kasi:kasi@127.0.0.1:${await closedPort()}/kasi`, 2);
      closers.push(() => db.destroy());
      const server = await serve({ db });
      const res = await getJson(`${server.url}/readyz`);
      assert.equal(res.status, 503);
      assert.equal(res.body.status, 'not_ready');
      assert.deepEqual(res.body.checks.database, { status: 'failed', message: 'the database does not answer' });
      assert.deepEqual(res.body.checks.migrations, { status: 'failed', message: 'the migrations table cannot be read' });
      assert.deepEqual(res.body.checks.orchestration, { status: 'ok' });
      assert.doesNotMatch(JSON.stringify(res.body), /ECONNREFUSED|127\.0\.0\.1/, 'no driver detail in the unauthenticated answer');
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    });

    it('/readyz answers 503 when the Temporal server does not answer', async () => {
      // The check a service on Temporal gets, pointed at a port nothing listens on.
      const observer = observeOrchestration({ temporal: { address: `127.0.0.1:${await closedPort()}`, namespace: 'default' }, log: pino({ level: 'silent' }) });
      closers.push(() => observer.stop());
      const server = await serve({ orchestrationCheck: observer.readiness });
      const res = await getJson(`${server.url}/readyz`);
      assert.equal(res.status, 503);
      assert.deepEqual(res.body.checks.orchestration, { status: 'failed', message: 'the Temporal server does not answer' });
      assert.deepEqual(res.body.checks.database, { status: 'ok' });
      assert.deepEqual(res.body.checks.migrations, { status: 'ok' });
    });
  });
});
