// What an operator may set as a mode's card processor (`kasi processor set`): the bank's gateway
// is reached over https; plain http only on this machine's loopback (the gateway simulator).
import type { FieldError } from './errors';

export interface GatewayProfileFields {
  gatewayUrl: string;
  merchantId: string;
  apiPassword: string;
  notificationSecret: string | null;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const MERCHANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The gateway's base URL as kept (no trailing slash), or why it cannot be one. */
export function gatewayUrlOf(raw: string): { url: string } | { problem: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: 'must be an absolute URL, such as https://test-gateway.mastercard.com' };
  }
  if (url.username || url.password || url.search || url.hash) return { problem: 'must be the gateway\'s base URL alone, with no user name, password, query or fragment' };
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) return { problem: 'must use https (http only on this machine, for the gateway simulator)' };
  return { url: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}

/** The profile's problems, one per field, none when it may be kept. */
export function gatewayProfileProblems(fields: GatewayProfileFields): FieldError[] {
  const problems: FieldError[] = [];
  const url = gatewayUrlOf(fields.gatewayUrl);
  if ('problem' in url) problems.push({ path: 'gatewayUrl', message: url.problem });
  if (!MERCHANT_ID.test(fields.merchantId)) problems.push({ path: 'merchantId', message: 'must be the gateway\'s merchant id: 1 to 64 letters, digits, - or _' });
  if (fields.apiPassword.length === 0 || fields.apiPassword.length > 256) problems.push({ path: 'apiPassword', message: 'must be the API password the bank gave (1 to 256 characters)' });
  if (fields.notificationSecret !== null && (fields.notificationSecret.length < 16 || fields.notificationSecret.length > 256)) {
    problems.push({ path: 'notificationSecret', message: 'must be the gateway\'s notification secret (16 to 256 characters)' });
  }
  return problems;
}

/** Where the gateway posts notifications about an account's orders in a mode (under the public base URL). */
export const NOTIFICATIONS_PATH = '/processor-notifications';

export function notificationPath(accountId: string, mode: string): string {
  return `${NOTIFICATIONS_PATH}/${accountId}/${mode}`;
}
