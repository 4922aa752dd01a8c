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

// Connections are kept alive between deliveries (a new TLS handshake per event would dominate the
// cost); a new connection always goes through the pinned, checked address below.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface PostOutcome {
  statusCode: number | null;
  /** The first bytes of the answer. */
  responseBody: string | null;
  error: string | null;
  latencyMs: number;
}

/** Refusals found before anything is sent: the URL or the addresses it resolves to. */
export class WebhookDestinationRefused extends Error {}

async function checkedAddress(url: URL, mode: Mode, resolve: Resolver): Promise<{ address: string; family: number }> {
  const problem = webhookUrlProblem(url.href, mode);
  if (problem) throw new WebhookDestinationRefused(problem);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host);
  if (addresses.length === 0) throw new WebhookDestinationRefused(`${host} does not resolve`);
  const refused = addresses.find((a) => !addressAllowed(a.address, mode));
  if (refused) throw new WebhookDestinationRefused(`${host} resolves to ${refused.address}, an internal address`);
  return addresses[0]!;
}

/** Why `rawUrl` may not receive this mode's webhooks (scheme, literal or resolved address), or null. */
export async function destinationProblem(rawUrl: string, mode: Mode, resolve: Resolver = systemResolver): Promise<string | null> {
  try {
    await checkedAddress(new URL(rawUrl), mode, resolve);
    return null;
  } catch (err) {
    if (err instanceof WebhookDestinationRefused) return err.message;
    // A name that does not resolve yet is accepted when saved; every send checks again.
    if (err instanceof TypeError) return 'Must be an absolute URL.';
    return null;
  }
}

export async function postWebhook(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  options: { mode: Mode; timeoutMs: number; resolve?: Resolver; responseLimit: number },
): Promise<PostOutcome> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const url = new URL(rawUrl);
  let target: { address: string; family: number };
  try {
    target = await checkedAddress(url, options.mode, options.resolve ?? systemResolver);
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
    const finish = (outcome: Omit<PostOutcome, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, latencyMs: latency() });
    };
    const req = transport.request(url, {
      method: 'POST',
      lookup: pinned,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: agents[url.protocol as 'http:' | 'https:'],
    });
    const timer = setTimeout(() => {
      finish({ statusCode: null, responseBody: null, error: `no answer within ${options.timeoutMs} ms` });
      req.destroy();
    }, options.timeoutMs);
    req.on('error', (err) => finish({ statusCode: null, responseBody: null, error: err.message }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size < options.responseLimit) chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () =>
        finish({ statusCode: res.statusCode ?? null, responseBody: Buffer.concat(chunks).toString('utf8').slice(0, options.responseLimit), error: null }),
      );
      res.on('error', (err) => finish({ statusCode: res.statusCode ?? null, responseBody: null, error: err.message }));
    });
    req.end(body);
  });
}
