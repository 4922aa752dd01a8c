// The gateway's REST API (version 100) as the adapter calls it: Basic authentication as
// `merchant.<merchantId>` with the API password, JSON both ways, a timeout on every request. An
// answer is sorted into three: done (2xx), refused (INVALID_REQUEST: the request is wrong, or names
// an order or token the gateway does not have, and repeating it changes nothing) and unavailable
// (no answer, a 5xx, SERVER_BUSY, credentials refused, our own timeout: what happened is not known
// and the request may be repeated as it was).
export const API_VERSION = 100;

export type GatewayAnswer =
  | { kind: 'done'; body: Record<string, unknown> }
  | { kind: 'refused'; status: number; cause: string; explanation: string; body: Record<string, unknown> }
  | { kind: 'unavailable'; reason: string };

export interface GatewayClientConfig {
  gatewayUrl: string;
  merchantId: string;
  apiPassword: string;
  timeoutMs: number;
}

export type GatewayRequest = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) => Promise<GatewayAnswer>;

export function gatewayClient(config: GatewayClientConfig): GatewayRequest {
  const base = `${config.gatewayUrl.replace(/\/+$/, '')}/api/rest/version/${API_VERSION}/merchant/${encodeURIComponent(config.merchantId)}`;
  const authorization = `Basic ${Buffer.from(`merchant.${config.merchantId}:${config.apiPassword}`).toString('base64')}`;
  return async (method, path, body) => {
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(config.timeoutMs),
        // The gateway's API never redirects: an answer from anywhere else (plain http, another
        // host) must not decide a payment, so a redirect is no answer.
        redirect: 'error',
      });
      text = await response.text();
    } catch (err) {
      return { kind: 'unavailable', reason: err instanceof Error ? err.message : String(err) };
    }
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      return { kind: 'unavailable', reason: `HTTP ${response.status} with a body that is not JSON` };
    }
    const error = (parsed.error ?? {}) as { cause?: string; explanation?: string };
    // Credentials refused (REQUEST_REJECTED) count as no answer too: nothing was done, and the
    // step must wait for the operator to fix the settings, not record a decline.
    if (response.status >= 500 || response.status === 401 || response.status === 403 || ['SERVER_BUSY', 'SERVER_FAILED', 'REQUEST_REJECTED'].includes(error.cause ?? '')) {
      return { kind: 'unavailable', reason: `HTTP ${response.status} ${error.cause ?? ''} ${error.explanation ?? ''}`.trim() };
    }
    if (response.status >= 400 || parsed.result === 'ERROR') {
      return { kind: 'refused', status: response.status, cause: error.cause ?? 'UNKNOWN', explanation: error.explanation ?? `HTTP ${response.status}`, body: parsed };
    }
    return { kind: 'done', body: parsed };
  };
}
