// A real API server on an ephemeral port over a fresh database, with a manual clock, for HTTP
// tests. `request` is a thin fetch wrapper that returns status, headers and parsed JSON.
import type { Knex } from 'knex';
import pino from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { loadConfig, type Config } from '../../config';
import { connect } from '../../db/connection';
import { createMerchant, type MerchantKeys } from '../../db/merchants';
import { updateAccount, type AccountChanges } from '../../db/accounts';
import { ManualClock } from '../../domain/clock';
import { listen, type RunningServer } from '../../api/server';
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

export interface TestApi {
  url: string;
  databaseUrl: string;
  knex: Knex;
  clock: ManualClock;
  config: Config;
  server: RunningServer;
  request<T = any>(path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  merchant(options?: { name?: string; activate?: boolean; changes?: AccountChanges }): Promise<{ accountId: string; keys: MerchantKeys }>;
  /** Another server on the same database (to test what several API processes share). */
  sibling(env?: Record<string, string>): Promise<TestApi>;
  close(): Promise<void>;
}

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
  clock: ManualClock,
  limiter?: RateLimiterAbstract,
): Promise<TestApi> {
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', RATE_LIMIT_PER_MINUTE: '100000', LOG_LEVEL: 'silent', ...env });
  const knex = connect(url, 10);
  const log = pino({ level: config.logLevel });
  const server = await listen({ db: knex, config, log, clock, limiter }, 0);
  const api: TestApi = {
    url: server.url,
    databaseUrl: url,
    knex,
    clock,
    config: server.config,
    server,
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
    sibling: (siblingEnv = {}) => startOn(null, url, { ...env, ...siblingEnv }, clock),
    async close() {
      await server.close();
      await knex.destroy();
      await database?.drop();
    },
  };
  return api;
}

export async function startApi(options: { env?: Record<string, string>; clock?: ManualClock; limiter?: RateLimiterAbstract } = {}): Promise<TestApi> {
  const database = await freshDatabase();
  return startOn(database, database.url, options.env ?? {}, options.clock ?? new ManualClock(), options.limiter);
}
