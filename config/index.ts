// The service's configuration, read once from the environment (names are a fixed contract: see
// docs/contributors/decisions.md). Everything else receives a Config rather than reading process.env itself.
import path from 'node:path';
import { CHECKOUT_LIFETIME_MS } from '../domain/checkout-rules';
import { loadPlans, type Plan } from './plans';
import { loadSecretKey } from './secret-key';

export interface Config {
  port: number;
  host: string;
  /** What {base_url} and {checkout_url} become. */
  publicBaseUrl: string;
  /** False when publicBaseUrl is only derived from HOST and PORT (then it follows the bound port). */
  publicBaseUrlSet: boolean;
  /** {docs_url}: the page explaining every error reason. */
  docsUrl: string;
  databaseUrl: string | undefined;
  temporalAddress: string | undefined;
  temporalNamespace: string;
  dataDir: string;
  rateLimitPerMinute: number;
  /** `memory` (one process) or `postgres` (several API processes share one count). */
  rateLimitStore: 'memory' | 'postgres';
  /** Browser origins, besides the service's own, whose requests the REST API answers. */
  corsOrigins: string[];
  smtpUrl: string | undefined;
  /** The From of customer emails (KASI_EMAIL_FROM). */
  emailFrom: string;
  logLevel: string;
  plans: Record<string, Plan>;
  /** Encrypts stored secrets; read on first use (see config/secret-key.ts). */
  secretKey(): Buffer;
  /**
   * How long a new checkout stays open: the spec's 30 minutes. KASI_CHECKOUT_LIFETIME_MS changes it
   * only so an end-to-end test on a real Temporal server sees an expiry in seconds.
   */
  checkoutLifetimeMs: number;
  /** A webhook attempt that has no answer after this long counts as failed. */
  webhookTimeoutMs: number;
  /**
   * How long after its approval a test payment settles at the sandbox processor, which refunds
   * only settled payments (KASI_SANDBOX_SETTLEMENT_MS; see docs/reference/refunds.md).
   */
  sandboxSettlementMs: number;
  /**
   * Whether test-mode webhooks may go to loopback (http on localhost, for local development).
   * KASI_WEBHOOK_ALLOW_LOOPBACK; by default only on a local install (PUBLIC_BASE_URL on loopback):
   * on a shared server, loopback is the server itself.
   */
  webhookAllowLoopback: boolean;
  /** TRUST_PROXY=true: the client address comes from X-Forwarded-For. */
  trustProxy: boolean;
  /** Behind TRUST_PROXY, how many proxies append to X-Forwarded-For (the client is read before them). */
  trustedProxyHops: number;
  /** METRICS_TOKEN: when set, GET /metrics wants `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /**
   * Whether GET /metrics answers without METRICS_TOKEN: only when HOST is loopback, where nothing
   * but this machine reaches it. Beyond loopback (HOST=0.0.0.0, as in the Docker image) metrics
   * without a token would be open to whoever reaches the port: 404 instead.
   */
  metricsOpen: boolean;
}

type Env = Record<string, string | undefined>;

/** A few seconds, as a card payment takes to settle in a bank's sandbox. */
export const DEFAULT_SANDBOX_SETTLEMENT_MS = 5_000;

function integer(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number, got "${raw}"`);
  return Number(raw);
}

/** HOST names loopback alone: `localhost`, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || /^127(\.\d{1,3}){3}$/.test(host) || ['::1', '[::1]'].includes(host);
}

/** The configuration once the server is bound: with PORT=0 the base URL names the real port. */
export function withBoundPort(config: Config, port: number): Config {
  if (config.publicBaseUrlSet || port === config.port) return config;
  const publicBaseUrl = `http://${config.host}:${port}`;
  return { ...config, port, publicBaseUrl, docsUrl: `${publicBaseUrl}/docs/errors` };
}

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 3000);
  const host = env.HOST || '127.0.0.1';
  const publicBaseUrl = (env.PUBLIC_BASE_URL || `http://${host}:${port}`).replace(/\/+$/, '');
  const store = env.RATE_LIMIT_STORE || 'memory';
  if (store !== 'memory' && store !== 'postgres') {
    throw new Error(`RATE_LIMIT_STORE must be memory or postgres, got "${store}"`);
  }
  const dataDir = path.resolve(env.KASI_DATA_DIR || '.data');
  let secretKey: Buffer | undefined;
  return {
    port,
    host,
    publicBaseUrl,
    publicBaseUrlSet: !!env.PUBLIC_BASE_URL,
    docsUrl: `${publicBaseUrl}/docs/errors`,
    databaseUrl: env.DATABASE_URL || undefined,
    temporalAddress: env.TEMPORAL_ADDRESS || undefined,
    temporalNamespace: env.TEMPORAL_NAMESPACE || 'default',
    dataDir,
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 120),
    rateLimitStore: store,
    corsOrigins: (env.CORS_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean),
    smtpUrl: env.SMTP_URL || undefined,
    emailFrom: env.KASI_EMAIL_FROM || 'Kasi <no-reply@localhost>',
    logLevel: env.LOG_LEVEL || 'info',
    plans: loadPlans(env.KASI_PLANS_FILE || undefined),
    secretKey: () => (secretKey ??= loadSecretKey(env.KASI_SECRET_KEY || undefined, dataDir)),
    checkoutLifetimeMs: integer(env, 'KASI_CHECKOUT_LIFETIME_MS', CHECKOUT_LIFETIME_MS),
    webhookTimeoutMs: integer(env, 'KASI_WEBHOOK_TIMEOUT_MS', 10_000),
    sandboxSettlementMs: integer(env, 'KASI_SANDBOX_SETTLEMENT_MS', DEFAULT_SANDBOX_SETTLEMENT_MS),
    webhookAllowLoopback: env.KASI_WEBHOOK_ALLOW_LOOPBACK
      ? env.KASI_WEBHOOK_ALLOW_LOOPBACK === 'true'
      : ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(publicBaseUrl).hostname),
    trustProxy: env.TRUST_PROXY === 'true',
    trustedProxyHops: integer(env, 'TRUSTED_PROXY_HOPS', 1),
    metricsToken: env.METRICS_TOKEN || undefined,
    metricsOpen: isLoopbackHost(host),
  };
}
