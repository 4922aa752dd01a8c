// One signed webhook POST, safe against SSRF: the host is resolved here, every address it
// resolves to is checked, and the connection goes to the checked address (so a DNS answer that
// changes between check and connect cannot redirect it). A 10-second budget covers the whole
// exchange.
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Mode } from '../domain/api-keys';
import { addressAllowed, webhookUrlProblem } from '../domain/webhook-url';

// Connections are kept alive between deliveries (a new connection, let alone a TLS handshake, per
// event would dominate the cost); a new connection always goes through the pinned, checked address
// below. A pooled socket serves later requests to the same host and port without a new check, so
// each address policy (mode, and whether loopback is allowed) has its own pools: a socket opened
// to this machine for a local test endpoint can never carry a live delivery, whatever the host
// name resolves to by then.
const agents = new Map<string, { 'http:': http.Agent; 'https:': https.Agent }>();

/** The pool of kept-alive connections a delivery under this policy may use. */
export function connectionPool(protocol: string, to: Destination): http.Agent {
  const policy = `${to.mode}/${to.allowLoopback}`;
  let pools = agents.get(policy);
  if (pools === undefined) {
    pools = { 'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }), 'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }) };
    agents.set(policy, pools);
  }
  return pools[protocol as 'http:' | 'https:'];
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** A name server that never answers must not hold a delivery (or a request) for long. */
export const DNS_TIMEOUT_MS = 3_000;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WebhookDestinationRefused(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface PostOutcome {
  statusCode: number | null;
  /** The first bytes of the answer. */
  responseBody: string | null;
  error: string | null;
  latencyMs: number;
}

/** Refusals found before anything is sent: the URL or the addresses it resolves to. */
export class WebhookDestinationRefused extends Error {}

export interface Destination {
  mode: Mode;
  allowLoopback: boolean;
  resolve?: Resolver;
}

async function checkedAddress(url: URL, to: Destination, timeoutMs = DNS_TIMEOUT_MS): Promise<{ address: string; family: number }> {
  const problem = webhookUrlProblem(url.href, to.mode, to.allowLoopback);
  if (problem) throw new WebhookDestinationRefused(problem);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host)
    ? [{ address: host, family: isIP(host) }]
    : await withTimeout((to.resolve ?? systemResolver)(host), Math.min(timeoutMs, DNS_TIMEOUT_MS), `resolving ${host}`);
  if (addresses.length === 0) throw new WebhookDestinationRefused(`${host} does not resolve`);
  const refused = addresses.find((a) => !addressAllowed(a.address, to.mode, to.allowLoopback));
  if (refused) throw new WebhookDestinationRefused(`${host} resolves to ${refused.address}, an internal address`);
  return addresses[0]!;
}

/** Why `rawUrl` may not receive this mode's webhooks (scheme, literal or resolved address), or null. */
export async function destinationProblem(rawUrl: string, to: Destination): Promise<string | null> {
  try {
    await checkedAddress(new URL(rawUrl), to);
    return null;
  } catch (err) {
    // A name server that is only slow is not a reason to refuse the endpoint; sends check again.
    if (err instanceof WebhookDestinationRefused) return /took longer than/.test(err.message) ? null : err.message;
    // A name that does not resolve yet is accepted when saved; every send checks again.
    if (err instanceof TypeError) return 'Must be an absolute URL.';
    return null;
  }
}

/**
 * The start of a receiver's answer as text PostgreSQL keeps: at most `limitBytes` of UTF-8, cut
 * on a character boundary, invalid sequences and NUL (which a text column refuses, and which once
 * left an attempt unrecorded and its event sent again and again) as U+FFFD.
 */
export function storableText(bytes: Buffer, limitBytes: number): string {
  let text = bytes.subarray(0, limitBytes).toString('utf8').replaceAll('\0', '\uFFFD');
  // A character cut at the limit decodes as U+FFFD; drop it, and anything the replacements grew.
  if (bytes.length > limitBytes && text.endsWith('\uFFFD')) text = text.slice(0, -1);
  while (Buffer.byteLength(text) > limitBytes) text = text.slice(0, /[\uDC00-\uDFFF]$/.test(text) ? -2 : -1);
  return text;
}

export async function postWebhook(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  options: Destination & { timeoutMs: number; responseLimit: number },
): Promise<PostOutcome> {
  // The budget covers the whole exchange, name resolution included.
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const url = new URL(rawUrl);
  let target: { address: string; family: number };
  try {
    target = await checkedAddress(url, options, options.timeoutMs);
  } catch (err) {
    return { statusCode: null, responseBody: null, error: err instanceof Error ? err.message : String(err), latencyMs: latency() };
  }
  const pinned: LookupFunction = (_host, opts, callback) => {
    if ((opts as { all?: boolean }).all) callback(null, [target]);
    else callback(null, target.address, target.family);
  };
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<PostOutcome, 'latencyMs'>, atLeastMs = 0) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // A transport error's text can quote what the receiver sent.
      const error = outcome.error === null ? null : storableText(Buffer.from(outcome.error), options.responseLimit);
      resolve({ ...outcome, error, latencyMs: Math.max(latency(), atLeastMs) });
    };
    const req = transport.request(url, {
      method: 'POST',
      lookup: pinned,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: connectionPool(url.protocol, options),
    });
    const timer = setTimeout(() => {
      // Node's timers may fire a millisecond before performance.now() says the time is up: an
      // attempt cut off by the timeout lasted all of it.
      finish({ statusCode: null, responseBody: null, error: `no answer within ${options.timeoutMs} ms` }, options.timeoutMs);
      req.destroy();
    }, Math.max(0, options.timeoutMs - latency()));
    req.on('error', (err) => finish({ statusCode: null, responseBody: null, error: err.message }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size < options.responseLimit) chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () =>
        finish({ statusCode: res.statusCode ?? null, responseBody: storableText(Buffer.concat(chunks), options.responseLimit), error: null }),
      );
      res.on('error', (err) => finish({ statusCode: res.statusCode ?? null, responseBody: null, error: err.message }));
    });
    req.end(body);
  });
}
