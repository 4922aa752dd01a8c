// What a guide's reader does in a browser, done over HTTP as the browser would (the browser tests
// in test/browser/ cover the same steps in Debian's chromium). A guide names one in a comment,
// `<!-- guide: <name> <args> -->`; the arguments come expanded by the guide's shell.
import assert from 'node:assert/strict';
import type { TestApi } from '../support/api';
import { get, payAtProcessor } from '../checkouts/hosted-flow';

export type GuideAction = (api: TestApi, args: string[]) => Promise<void>;

export const GUIDE_ACTIONS: Record<string, GuideAction> = {
  /**
   * `pay <checkoutUrl> <card number> <MM/YY> <cvv> [3ds=pass|fail] [name=...] [email=...] [phone=...]`:
   * the payer's details and Pay on the checkout page, the card and 3-D Secure at the processor, and back.
   */
  async pay(api, [checkoutUrl, number, expiry, cvv, ...options]) {
    assert.ok(checkoutUrl && number && expiry && cvv, 'pay <checkoutUrl> <number> <MM/YY> <cvv> [3ds=pass|fail] [field=value...]');
    const { '3ds': threeDs, ...details } = { name: 'Nimal Perera', email: 'nimal@example.com', ...Object.fromEntries(options.map((o) => o.split(/=(.*)/s).slice(0, 2))) };
    const back = await payAtProcessor(api, checkoutUrl, { number, expiry, cvv, threeDs: threeDs === 'fail' ? 'fail' : 'pass' }, details);
    const landing = await get(back);
    assert.ok(landing.status < 400, `the return to the service answered ${landing.status}: ${landing.text}`);
  },
};
