// What a guide's reader does in a browser, done over HTTP as the browser would (the browser tests
// in test/browser/ cover the same steps in Debian's chromium). A guide names one in a comment,
// `<!-- guide: <name> <args> -->`; the arguments come expanded by the guide's shell.
import assert from 'node:assert/strict';
import type { TestApi } from '../support/api';
import { get, payAtProcessor, postPay } from '../checkouts/hosted-flow';
import { payerCheckout } from '../payment-links/link-flow';

export type GuideAction = (api: TestApi, args: string[]) => Promise<void>;

/** The details a payer types when a page asks for them and the guide names none. */
const PAYER = { name: 'Nimal Perera', email: 'nimal@example.com' };

/**
 * `<name> <pageUrl> <card number> <MM/YY> <cvv> [3ds=pass|fail] [field=value...]`: the button of a
 * page that opens a checkout (a payment link's Continue, an invoice's Pay this invoice), then that
 * checkout paid as `pay` does (`saveCard=yes` ticks the consent to keep the card).
 */
const payThroughPage =
  (name: string): GuideAction =>
  async (api, [pageUrl, ...rest]) => {
    assert.ok(pageUrl, `${name} <pageUrl> <number> <MM/YY> <cvv> [3ds=pass|fail] [field=value...]`);
    await GUIDE_ACTIONS.pay!(api, [await payerCheckout(api, pageUrl), ...rest]);
  };

/** `pay-refused <checkoutUrl> <status>`: Pay on the checkout page is answered with that status; no card is asked for. */
const payRefused: GuideAction = async (_api, [checkoutUrl, status]) => {
  assert.ok(checkoutUrl && status, 'pay-refused <checkoutUrl> <status>');
  const pressed = await postPay(checkoutUrl, PAYER);
  assert.equal(pressed.status, Number(status), pressed.text);
};

export const GUIDE_ACTIONS: Record<string, GuideAction> = {
  'pay-invoice': payThroughPage('pay-invoice'),
  'pay-link': payThroughPage('pay-link'),
  'pay-refused': payRefused,
  /**
   * `pay <checkoutUrl> <card number> <MM/YY> <cvv> [3ds=pass|fail] [name=...] [email=...] [phone=...]`:
   * the payer's details and Pay on the checkout page, the card and 3-D Secure at the processor, and back.
   */
  async pay(api, [checkoutUrl, number, expiry, cvv, ...options]) {
    assert.ok(checkoutUrl && number && expiry && cvv, 'pay <checkoutUrl> <number> <MM/YY> <cvv> [3ds=pass|fail] [field=value...]');
    const { '3ds': threeDs, ...details } = { ...PAYER, ...Object.fromEntries(options.map((o) => o.split(/=(.*)/s).slice(0, 2))) };
    const back = await payAtProcessor(api, checkoutUrl, { number, expiry, cvv, threeDs: threeDs === 'fail' ? 'fail' : 'pass' }, details);
    const landing = await get(back);
    assert.ok(landing.status < 400, `the return to the service answered ${landing.status}: ${landing.text}`);
  },
};
