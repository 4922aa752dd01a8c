// Webhook signatures, per the spec: `Service-Signature: t=<unix seconds>,v1=<64 hex>[,v1=...]`,
// each v1 an HMAC-SHA256 with one signing secret over `<t>.<raw body>`. One v1 per active secret
// while a rotated secret is kept. The same module signs (the service) and verifies (merchants,
// through the package's `verifyWebhook`).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Service-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export function signatureHex(secret: string, timestamp: number, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** The header value for a body sent at `timestamp` (unix seconds), one v1 per secret. */
export function signatureHeader(secrets: readonly string[], timestamp: number, rawBody: string | Buffer): string {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${signatureHex(s, timestamp, rawBody)}`)].join(',');
}

export type WebhookVerificationFailure = 'malformed_header' | 'timestamp_outside_tolerance' | 'no_matching_signature';

/** Says which check failed; never which secret or signature was expected. */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

function parseHeader(header: string): { timestamp: number; signatures: string[] } {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const item of header.split(',')) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new WebhookVerificationError('malformed_header', 'Each part of the signature header must be key=value.');
    const key = item.slice(0, eq);
    const value = item.slice(eq + 1);
    if (key === 't') {
      if (timestamp !== undefined) throw new WebhookVerificationError('malformed_header', 'The signature header has more than one t.');
      if (!/^\d{1,12}$/.test(value)) throw new WebhookVerificationError('malformed_header', 't must be 1 to 12 digits.');
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) throw new WebhookVerificationError('malformed_header', 'Each v1 must be 64 hex digits.');
      signatures.push(value.toLowerCase());
    }
    // Other schemes (a future v2) are ignored, so old verifiers keep working.
  }
  if (timestamp === undefined) throw new WebhookVerificationError('malformed_header', 'The signature header has no t.');
  if (signatures.length === 0) throw new WebhookVerificationError('malformed_header', 'The signature header has no v1.');
  return { timestamp, signatures };
}

/**
 * Checks a delivery: the header's shape, a v1 matching the body under `secret` (constant-time
 * comparison), and the timestamp within the tolerance of now. Use the raw body exactly as
 * received. Returns the parsed event; throws WebhookVerificationError saying which check failed.
 */
export function verifyWebhook<Event = unknown>(
  rawBody: string | Buffer,
  signatureHeaderValue: string | undefined,
  secret: string,
  options: { toleranceSeconds?: number; now?: Date } = {},
): Event {
  if (typeof signatureHeaderValue !== 'string' || signatureHeaderValue === '') {
    throw new WebhookVerificationError('malformed_header', `The ${SIGNATURE_HEADER} header is missing.`);
  }
  const { timestamp, signatures } = parseHeader(signatureHeaderValue);
  const expected = Buffer.from(signatureHex(secret, timestamp, rawBody), 'hex');
  const matched = signatures.reduce((found, s) => timingSafeEqual(Buffer.from(s, 'hex'), expected) || found, false);
  if (!matched) throw new WebhookVerificationError('no_matching_signature', 'No signature matches the body under this secret.');
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - timestamp) > tolerance) {
    throw new WebhookVerificationError('timestamp_outside_tolerance', `The signature's time is more than ${tolerance} seconds from now.`);
  }
  return JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8')) as Event;
}
