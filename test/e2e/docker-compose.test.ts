// docker-compose.yml, as written and as Debian's docker-compose (1.29) renders it: every published
// port on 127.0.0.1 only, valid, refusing to start without KASI_SECRET_KEY, and true to how Kasi
// runs on Temporal (a worker with activities and the API's database and key, the search
// attributes registered before either starts, a healthcheck on every long-running service, and
// each started once what it needs is healthy). Nothing is pulled or started. Skipped, saying why,
// without docker-compose (or Python's yaml module, for the file as written).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { KASI_SEARCH_ATTRIBUTES } from '../../orchestration/search-attributes';
import { PROJECT_ROOT } from '../../workers/temporal-dev-server';

const COMPOSE_FILE = path.join(PROJECT_ROOT, 'docker-compose.yml');
const KEY = Buffer.alloc(32, 9).toString('base64');

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  ports?: (string | number | { host_ip?: string; published?: string | number; target?: number })[];
  network_mode?: string;
}

/** YAML as JSON, by Python's yaml module (Debian's docker-compose brings it), or null without it. */
function yamlToJson(text: string): unknown {
  const json = spawnSync('python3', ['-c', 'import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'], { input: text, encoding: 'utf8' });
  if (json.error || json.status !== 0) return null;
  return JSON.parse(json.stdout);
}

/**
 * The services' published ports not bound to 127.0.0.1 (short syntax `ip:published:target`, or
 * the long syntax's `host_ip`), and any service on the host's network, where nothing is published
 * and everything listens on the host's interfaces.
 */
function openToTheWorld(services: Record<string, Service>): string[] {
  const open: string[] = [];
  for (const [name, service] of Object.entries(services)) {
    if (service.network_mode === 'host') open.push(`${name}: network_mode host`);
    for (const port of service.ports ?? []) {
      const bound = typeof port === 'object' ? port.host_ip === '127.0.0.1' : /^127\.0\.0\.1:\d+(-\d+)?:\d+(-\d+)?(\/\w+)?$/.test(String(port));
      if (!bound) open.push(`${name}: ${JSON.stringify(port)}`);
    }
  }
  return open;
}

describe('docker-compose.yml as written', () => {
  it('publishes every port on 127.0.0.1 only (Temporal\'s frontend has no authentication)', function () {
    const file = yamlToJson(readFileSync(COMPOSE_FILE, 'utf8')) as { services: Record<string, Service> } | null;
    if (file === null) {
      console.log('    skipped: no python3 with its yaml module');
      this.skip();
    }
    const published = Object.values(file.services).flatMap((s) => s.ports ?? []);
    assert.ok(published.length >= 3, 'the API, Temporal and its UI are published');
    assert.deepEqual(openToTheWorld(file.services), []);
    assert.deepEqual(openToTheWorld({ example: { ports: ['7233:7233', 7233, '0.0.0.0:7233:7233', { target: 7233, published: 7233 }] } }).length, 4, 'the check sees every form');
  });
});

function compose(env: Record<string, string | undefined>, args: string[]) {
  const { KASI_SECRET_KEY: _ignored, ...rest } = process.env;
  return spawnSync('docker-compose', ['-f', COMPOSE_FILE, ...args], { env: { ...rest, ...env }, encoding: 'utf8', timeout: 30_000 });
}

describe('docker-compose.yml', function () {
  this.timeout(60_000);
  let services: Record<string, Service>;

  before(function () {
    if (compose({}, ['version']).error) {
      console.log('    docker-compose tests skipped: no docker-compose (apt-get install docker-compose)');
      this.skip();
    }
    const rendered = compose({ KASI_SECRET_KEY: KEY }, ['config']);
    assert.equal(rendered.status, 0, rendered.stderr);
    // docker-compose 1.29 prints YAML only; Debian's package brings Python's yaml module with it.
    const json = yamlToJson(rendered.stdout) as { services: Record<string, Service> } | null;
    assert.ok(json, 'python3 reads the rendered YAML');
    services = json.services;
  });

  it('publishes every port on 127.0.0.1 only, as docker-compose reads it', () => {
    assert.deepEqual(openToTheWorld(services), []);
  });

  it('passes METRICS_TOKEN to the API when set (without it, /metrics is 404 beyond loopback)', () => {
    assert.equal(services.api?.environment?.METRICS_TOKEN, '');
    const withToken = compose({ KASI_SECRET_KEY: KEY, METRICS_TOKEN: 'scrape-me' }, ['config']);
    assert.equal(withToken.status, 0, withToken.stderr);
    assert.match(withToken.stdout, /METRICS_TOKEN: scrape-me/);
  });

  it('refuses to start without KASI_SECRET_KEY, saying what to set', () => {
    const answer = compose({}, ['config', '-q']);
    assert.notEqual(answer.status, 0);
    assert.match(answer.stderr, /set KASI_SECRET_KEY to 32 random bytes in base64/);
  });

  it('runs the API and a worker from the image, with one database, Temporal and key between them', () => {
    const { api, worker } = services;
    assert.deepEqual(api?.command, ['npm', 'start']);
    assert.deepEqual(worker?.command, ['npm', 'run', 'worker']);
    assert.ok(api.build && worker.build);
    for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'KASI_SECRET_KEY']) {
      assert.ok(api.environment?.[name], `api ${name}`);
      assert.equal(worker.environment?.[name], api.environment?.[name], name);
    }
    assert.equal(api.environment?.KASI_SECRET_KEY, KEY);
    assert.equal(api.environment?.TEMPORAL_ADDRESS, 'temporal:7233');
  });

  it('registers both search attributes in a one-shot service the API and the worker wait for', () => {
    const setup = services['temporal-setup'];
    const script = (setup?.command ?? []).join(' ');
    for (const name of KASI_SEARCH_ATTRIBUTES) assert.match(script, new RegExp(`\\b${name}\\b`));
    assert.match(script, /--type Keyword/);
    assert.doesNotMatch(script, /;\s*true\s*$/, 'a failed registration must fail the service');
    for (const name of ['api', 'worker']) assert.equal(services[name]?.depends_on?.['temporal-setup']?.condition, 'service_completed_successfully', name);
  });

  it('has a healthcheck on every long-running service, and starts each once what it needs is healthy', () => {
    for (const [name, service] of Object.entries(services)) {
      if (name === 'temporal-setup') continue;
      assert.ok(service.healthcheck?.test?.length, `${name} has a healthcheck`);
    }
    const expected: Record<string, Record<string, string>> = {
      temporal: { postgres: 'service_healthy' },
      'temporal-setup': { temporal: 'service_healthy' },
      'temporal-ui': { temporal: 'service_healthy' },
      api: { postgres: 'service_healthy', 'temporal-setup': 'service_completed_successfully' },
      // The API migrates the database; the worker starts on the migrated schema.
      worker: { api: 'service_healthy', 'temporal-setup': 'service_completed_successfully' },
    };
    for (const [name, needs] of Object.entries(expected)) {
      const conditions = Object.fromEntries(Object.entries(services[name]?.depends_on ?? {}).map(([dep, { condition }]) => [dep, condition]));
      assert.deepEqual(conditions, needs, name);
    }
    const workerCheck = services.worker?.healthcheck?.test ?? [];
    assert.ok(existsSync(path.join(PROJECT_ROOT, workerCheck[workerCheck.length - 1] ?? '')), `the worker's healthcheck script exists: ${workerCheck.join(' ')}`);
  });
});
