// The real service (API, activities, workflows on the embedded engine) on an ephemeral port over a
// fresh database, in virtual time: `clock.advance` moves the engine's clock, firing what falls
// due, and the API reads the same clock. `request` is a thin fetch wrapper.
import type { Knex } from 'knex';
import pino from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { loadConfig, type Config } from '../../config';
import { connect } from '../../db/connection';
import { createMerchant, type MerchantKeys } from '../../db/merchants';
import { updateAccount, type AccountChanges } from '../../db/accounts';
import type { RunningServer } from '../../api/server';
import { VirtualClock } from '../../workers/embedded-engine/clock';
import type { EmbeddedEngine } from '../../workers/embedded-engine/engine';
import { startService, type Service } from '../../workers/service';
import type { Resolver } from '../../activities/webhook-http';
import { freshDatabase, type TestDatabase } from './database';

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

/** Virtual time shared by the API and the workflows. */
export class TestClock {
  constructor(
    readonly virtual: VirtualClock,
    private readonly engine: () => EmbeddedEngine,
  ) {}
  now(): Date {
    return new Date(this.virtual.now());
  }
  /** Moves time forward, running every timer and activity that falls due on the way. */
  advance(ms: number): Promise<void> {
    return this.engine().advance(ms);
  }
  set(at: Date): Promise<void> {
    const ms = at.getTime() - this.virtual.now();
    if (ms < 0) throw new Error('time only moves forward');
    return this.advance(ms);
  }
}

export interface TestApi {
  url: string;
  databaseUrl: string;
  knex: Knex;
  clock: TestClock;
  config: Config;
  server: RunningServer;
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

async function startOn(
  database: TestDatabase | null,
  url: string,
  env: Record<string, string>,
  startAt: number,
  limiter?: RateLimiterAbstract,
  resolveHost?: Resolver,
): Promise<TestApi> {
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', RATE_LIMIT_PER_MINUTE: '100000', LOG_LEVEL: 'silent', KASI_SECRET_KEY: TEST_SECRET_KEY, ...env });
  const knex = connect(url, 10);
  const log = pino({ level: config.logLevel });
  const virtual = new VirtualClock(startAt);
  const service = await startService({ db: knex, databaseUrl: url, config, log, engineClock: virtual, limiter, port: 0, resolveHost });
  const server = service.http;
  const engine = service.orchestration.engine!;
  const clock = new TestClock(virtual, () => engine);
  const api: TestApi = {
    url: server.url,
    databaseUrl: url,
    knex,
    clock,
    config: server.config,
    server,
    engine,
    async request(path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
      if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
      let body: string | undefined = options.raw;
      if (body === undefined && options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(`${server.url}${path}`, { method: options.method ?? (body !== undefined ? 'POST' : 'GET'), headers, body });
      const text = await res.text();
      let parsed: unknown = undefined;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers, body: parsed as never, text };
    },
    async merchant(options = {}) {
      const { account, keys } = await createMerchant(knex, { name: options.name ?? 'Test Merchant', now: clock.now() });
      const changes: AccountChanges = { ...(options.activate ? { status: 'active' } : {}), ...options.changes };
      if (Object.keys(changes).length) await updateAccount(knex, account.id, changes, clock.now());
      return { accountId: account.id, keys };
    },
    service,
    sibling: (siblingEnv = {}) => startOn(null, url, { ...env, ...siblingEnv }, virtual.now()),
    async close() {
      await service.stop();
      await knex.destroy();
      await database?.drop();
    },
  };
  return api;
}

export async function startApi(
  options: { env?: Record<string, string>; startAt?: Date; limiter?: RateLimiterAbstract; resolveHost?: Resolver } = {},
): Promise<TestApi> {
  const database = await freshDatabase();
  return startOn(database, database.url, options.env ?? {}, (options.startAt ?? new Date()).getTime(), options.limiter, options.resolveHost);
}

/** The service with one activated merchant, as most suites start. */
export async function startApiWithMerchant(): Promise<{ api: TestApi; keys: MerchantKeys; accountId: string }> {
  const api = await startApi();
  try {
    return { api, ...(await api.merchant({ activate: true })) };
  } catch (err) {
    await api.close();
    throw err;
  }
}
