// The real service (API, activities, workflows) on an ephemeral port over a fresh database, in
// virtual time: `clock.advance` moves time forward, running what falls due, and the API reads the
// same clock. The workflows run on the embedded engine, or (`engine: 'time-skipping-server'`) on
// Temporal's own time-skipping test server through a Client and a Worker, where the clock follows
// the server's time. `request` is a thin fetch wrapper.
import type { Knex } from 'knex';
import pino from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { temporal } from '@temporalio/proto';
import { loadConfig, type Config } from '../../config';
import { connect } from '../../db/connection';
import { createMerchant, type MerchantKeys } from '../../db/merchants';
import { updateAccount, type AccountChanges } from '../../db/accounts';
import type { RunningServer } from '../../api/server';
import { VirtualClock } from '../../workers/embedded-engine/clock';
import type { EmbeddedEngine } from '../../workers/embedded-engine/engine';
import { startService, WORKFLOWS_PATH, type Service } from '../../workers/service';
import { missingToolMessage, toolPath } from '../../workers/tools';
import type { Resolver } from '../../net/webhook-http';
import { freshDatabase, type TestDatabase } from './database';
import { SERVER_TOLERANCE_MS, startTimeSkippingServer, type TimeSkippingServer } from './time-skipping-server';
import { replayHistory } from './workflow-env';

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  method?: string;
  key?: string;
  body?: unknown;
  /** Sent as is (a string), instead of JSON of `body`. */
  raw?: string;
  headers?: Record<string, string>;
  idempotencyKey?: string;
}

export type EngineKind = 'embedded' | 'time-skipping-server';

/** Time shared by the API and the workflows. */
export interface TestClock {
  now(): Date;
  /**
   * Moves time forward, running every timer and activity that falls due on the way, and waits
   * until what fell due has settled.
   */
  advance(ms: number): Promise<void>;
  set(at: Date): Promise<void>;
  /**
   * How late what falls due at an instant may run: 0 on the embedded engine (virtual time stands
   * still while tasks and activities run); on the server, real milliseconds pass meanwhile.
   */
  readonly toleranceMs: number;
  /** The embedded engine's virtual clock (embedded engine only). */
  readonly virtual: VirtualClock;
}

/** The workflows, whichever engine runs them. */
export interface TestWorkflows {
  readonly engine: EngineKind;
  /** The workflow's history, as a server holds it (latest run). */
  history(workflowId: string): Promise<temporal.api.history.v1.IHistory>;
  /** Replays the workflow's history on Temporal's Core. */
  replay(workflowId: string): Promise<void>;
  /** Lets the webhook dispatcher start what it has, then waits until no task or activity is left. */
  settle(): Promise<void>;
}

function testClock(parts: { now(): Date; advance(ms: number): Promise<void>; toleranceMs: number; virtual(): VirtualClock }): TestClock {
  return {
    now: parts.now,
    advance: parts.advance,
    async set(at) {
      const ms = at.getTime() - parts.now().getTime();
      if (ms < 0) throw new Error('time only moves forward');
      await parts.advance(ms);
    },
    toleranceMs: parts.toleranceMs,
    get virtual() {
      return parts.virtual();
    },
  };
}

export interface TestApi {
  url: string;
  databaseUrl: string;
  knex: Knex;
  clock: TestClock;
  workflows: TestWorkflows;
  config: Config;
  server: RunningServer;
  /** The embedded engine (embedded engine only). */
  engine: EmbeddedEngine;
  service: Service;
  request<T = any>(path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  merchant(options?: { name?: string; activate?: boolean; changes?: AccountChanges }): Promise<{ accountId: string; keys: MerchantKeys }>;
  /** Another server on the same database (to test what several API processes share). */
  sibling(env?: Record<string, string>): Promise<TestApi>;
  close(): Promise<void>;
}

/** The key that encrypts stored secrets in tests (the CLI child processes get it too). */
export const TEST_SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

let keyCounter = 0;
/** A unique, valid Idempotency-Key. */
export function ik(label = 'k'): string {
  keyCounter += 1;
  return `${label}-${process.pid}-${Date.now()}-${keyCounter}`;
}

export interface StartApiOptions {
  env?: Record<string, string>;
  /** Embedded engine only: where virtual time starts (now by default). */
  startAt?: Date;
  limiter?: RateLimiterAbstract;
  resolveHost?: Resolver;
  /** Which engine runs the workflows (the embedded engine by default). */
  engine?: EngineKind;
  /** Where the service's log lines go (stdout by default); set LOG_LEVEL in `env` to see them. */
  logStream?: pino.DestinationStream;
}

function embeddedOnly(what: string): never {
  throw new Error(`${what} is the embedded engine's; on the time-skipping server use api.workflows and api.clock`);
}

async function startOn(database: TestDatabase | null, url: string, options: StartApiOptions, startAt: number): Promise<TestApi> {
  const env = options.env ?? {};
  let temporalServer: TimeSkippingServer | undefined;
  if (options.engine === 'time-skipping-server') {
    const executable = toolPath('temporal-test-server');
    if (executable === undefined) throw new Error(missingToolMessage('temporal-test-server'));
    if (options.startAt) throw new Error('startAt: the time-skipping server starts at the real time');
    temporalServer = await startTimeSkippingServer(executable);
  }
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    RATE_LIMIT_PER_MINUTE: '100000',
    LOG_LEVEL: 'silent',
    KASI_SECRET_KEY: TEST_SECRET_KEY,
    ...(temporalServer ? { TEMPORAL_ADDRESS: temporalServer.address } : {}),
    ...env,
  });
  const knex = connect(url, 10);
  const log = pino({ level: config.logLevel }, options.logStream);
  const virtual = temporalServer ? undefined : new VirtualClock(startAt);
  let service: Service;
  try {
    service = await startService({
      db: knex,
      databaseUrl: url,
      config,
      log,
      engineClock: virtual,
      clock: temporalServer?.clock,
      wrapPort: temporalServer?.wrapPort,
      limiter: options.limiter,
      port: 0,
      resolveHost: options.resolveHost,
    });
  } catch (err) {
    await knex.destroy();
    await temporalServer?.stop();
    throw err;
  }
  const server = service.http;
  const drain = () => service.webhooks.drain();
  let clock: TestClock;
  let workflows: TestWorkflows;
  if (temporalServer) {
    const onServer = temporalServer;
    clock = testClock({
      now: () => onServer.clock.now(),
      advance: (ms) => onServer.skip(ms, drain),
      toleranceMs: SERVER_TOLERANCE_MS,
      virtual: () => embeddedOnly('api.clock.virtual'),
    });
    workflows = {
      engine: 'time-skipping-server',
      history: (workflowId) => onServer.history(workflowId),
      replay: (workflowId) => onServer.replay(workflowId),
      settle: () => onServer.settle(drain),
    };
  } else {
    const engine = service.orchestration.engine!;
    const virtualClock = virtual!;
    clock = testClock({ now: () => new Date(virtualClock.now()), advance: (ms) => engine.advance(ms), toleranceMs: 0, virtual: () => virtualClock });
    workflows = {
      engine: 'embedded',
      history: async (workflowId) => engine.exportHistory(workflowId),
      replay: (workflowId) => replayHistory(engine.exportHistory(workflowId), WORKFLOWS_PATH),
      async settle() {
        await drain();
        await engine.runUntilIdle();
      },
    };
  }
  const api: TestApi = {
    url: server.url,
    databaseUrl: url,
    knex,
    clock,
    workflows,
    config: server.config,
    server,
    get engine() {
      return service.orchestration.engine ?? embeddedOnly('api.engine');
    },
    request: (path, options) => requestAt(server.url, path, options),
    async merchant(options = {}) {
      const { account, keys } = await createMerchant(knex, { name: options.name ?? 'Test Merchant', now: clock.now() });
      const changes: AccountChanges = { ...(options.activate ? { status: 'active' } : {}), ...options.changes };
      if (Object.keys(changes).length) await updateAccount(knex, account.id, changes, clock.now());
      return { accountId: account.id, keys };
    },
    service,
    sibling: (siblingEnv = {}) =>
      temporalServer ? embeddedOnly('api.sibling') : startOn(null, url, { env: { ...env, ...siblingEnv } }, clock.now().getTime()),
    async close() {
      await service.stop();
      await temporalServer?.stop();
      await knex.destroy();
      await database?.drop();
    },
  };
  return api;
}

export async function startApi(options: StartApiOptions = {}): Promise<TestApi> {
  const database = await freshDatabase();
  try {
    return await startOn(database, database.url, options, (options.startAt ?? new Date()).getTime());
  } catch (err) {
    await database.drop();
    throw err;
  }
}

/** The service with one activated merchant, as most suites start. */
/** A request to the service at `url`, answered as TestApi's `request` answers (the body parsed when JSON). */
export async function requestAt<T = any>(url: string, path: string, options: RequestOptions = {}): Promise<TestResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
  let body: string | undefined = options.raw;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${url}${path}`, { method: options.method ?? (body !== undefined ? 'POST' : 'GET'), headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export async function startApiWithMerchant(options: StartApiOptions = {}): Promise<{ api: TestApi; keys: MerchantKeys; accountId: string }> {
  const api = await startApi(options);
  try {
    return { api, ...(await api.merchant({ activate: true })) };
  } catch (err) {
    await api.close();
    throw err;
  }
}

/**
 * For a suite on `engine`: skips it, saying why, when that engine is the time-skipping server and
 * its binary is not installed (call in the suite's first `before`).
 */
export function skipUnlessInstalled(context: Mocha.Context, engine: EngineKind): void {
  if (engine !== 'time-skipping-server' || toolPath('temporal-test-server') !== undefined) return;
  console.log(`      skipped: ${missingToolMessage('temporal-test-server')}`);
  context.skip();
}
