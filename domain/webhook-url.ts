// Where webhooks may go. Live endpoints: https only, and never to loopback, private, link-local
// or other internal addresses (no SSRF), checked when the endpoint is saved and again, on the
// resolved address, at every send. Test endpoints may also use http on localhost so merchants can
// develop locally, but only where the operator allows loopback (`allowLoopback`: a local install,
// see config): on a shared server, loopback is the server's own machine and its admin ports.
import { BlockList, isIP } from 'node:net';
import type { Mode } from './api-keys';

const internal = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  internal.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 of any IPv4
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  internal.addSubnet(network, prefix, 'ipv6');
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** IPv4-mapped IPv6 (::ffff:10.0.0.1) is checked as the IPv4 address it is. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1] as string, family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

export function isInternalAddress(address: string): boolean {
  const a = unmapped(address);
  return internal.check(a.address, a.family);
}

function isLoopbackAddress(address: string): boolean {
  const a = unmapped(address);
  return loopback.check(a.address, a.family);
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
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) && !addressAllowed(literal, mode, allowLoopback)) return 'Must not be a loopback, private, link-local or other internal address.';
  return null;
}

/** Whether a resolved address may receive this mode's webhooks. */
export function addressAllowed(address: string, mode: Mode, allowLoopback: boolean): boolean {
  if (!isInternalAddress(address)) return true;
  return mode === 'test' && allowLoopback && isLoopbackAddress(address);
}
