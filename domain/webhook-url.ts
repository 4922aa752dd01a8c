// Where webhooks may go. Live endpoints: https only, and never to loopback, private, link-local
// or other internal addresses (no SSRF), checked when the endpoint is saved and again, on the
// resolved address, at every send. Test endpoints may also use http on localhost so merchants can
// develop locally, but only where the operator allows loopback (`allowLoopback`: a local install,
// see config): on a shared server, loopback is the server's own machine and its admin ports.
import ipaddr from 'ipaddr.js';
import type { Mode } from './api-keys';

/**
 * The address as ipaddr.js parses it, an IPv4 address carried in IPv6 as the IPv4 address it is:
 * IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible ::a.b.c.d, which ipaddr.js
 * calls unicast when written in hex (::7f00:1) though it routes to 127.0.0.1 on some stacks.
 */
function parsed(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const ip = ipaddr.parse(address);
  if (!(ip instanceof ipaddr.IPv6)) return ip;
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address();
  const [a, b, c, d, e, f, g, h] = ip.parts as [number, number, number, number, number, number, number, number];
  const compatible = (a | b | c | d | e | f) === 0 && (g !== 0 || h > 1); // ::/96, but :: and ::1
  return compatible ? ipaddr.fromByteArray([g >> 8, g & 0xff, h >> 8, h & 0xff]) : ip;
}

/**
 * Only global unicast may receive a webhook. Every special-purpose range of the IANA registries
 * as ipaddr.js classifies them (private, loopback, link-local, carrier-grade NAT, documentation,
 * benchmarking, multicast, and the IPv6 transition forms 6to4, Teredo and NAT64, which can carry
 * an internal IPv4 address) is internal.
 */
export function isInternalAddress(address: string): boolean {
  return parsed(address).range() !== 'unicast';
}

function isLoopbackAddress(address: string): boolean {
  return parsed(address).range() === 'loopback';
}

const LOCAL_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The URL's own problems (scheme, credentials, a literal internal address), or null. */
export function webhookUrlProblem(raw: string, mode: Mode, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Must be an absolute URL.';
  }
  if (url.username || url.password) return 'Must not carry a user name or password.';
  const local = LOCAL_HOSTNAMES.has(url.hostname) && mode === 'test' && allowLoopback;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) {
    return mode === 'live' || !allowLoopback ? 'Must use https.' : 'Must use https (test endpoints may use http on localhost).';
  }
  // `localhost` (and its subdomains) is loopback by definition (RFC 6761): refused as its address
  // is, without asking a name server, which under load may not answer in time.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = host === 'localhost' || host.endsWith('.localhost') ? '127.0.0.1' : host;
  if (ipaddr.isValid(literal) && !addressAllowed(literal, mode, allowLoopback)) return 'Must not be a loopback, private, link-local or other internal address.';
  return null;
}

/** Whether a resolved address may receive this mode's webhooks. */
export function addressAllowed(address: string, mode: Mode, allowLoopback: boolean): boolean {
  if (!isInternalAddress(address)) return true;
  return mode === 'test' && allowLoopback && isLoopbackAddress(address);
}
