// A mode's card processor as `kasi processor set|show` print it (DESIGN.md's fixed shapes): where
// its payments go, never its secrets.
import type { CardProcessorRow } from '../db/processors';

export function cardProcessorView(row: CardProcessorRow) {
  return { mode: row.mode, processor: row.processor, gatewayUrl: row.gateway_url, merchantId: row.merchant_id };
}

/** Test mode with nothing set: the built-in sandbox. */
export const SANDBOX_VIEW = { mode: 'test', processor: 'sandbox' } as const;
