// Live mode on the gateway simulator (processor/gateway-simulator) in the service's virtual time:
// a merchant activated with saved cards on and its live mode set to the simulator, and a customer
// paying in a real browser (playwright-core driving Debian's chromium) on the service's page and
// the gateway's hosted page, found by the accessible names DESIGN.md fixes for both.
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { findAccount } from '../../db/accounts';
import type { MerchantKeys } from '../../db/merchants';
import { startGatewaySimulator, type GatewaySimulator } from '../../processor/gateway-simulator';
import { setCardProcessor } from '../../services/processors/set';
import { inTransaction } from '../../services/run';
import { serviceDeps } from '../cards/card-flow';
import { ik, startApi, type TestApi } from '../support/api';
import { launchChromium } from '../support/chromium';

export const NOTIFICATION_SECRET = 'lanka-tea-notification-secret';

export interface LiveApi {
  api: TestApi;
  simulator: GatewaySimulator;
  accountId: string;
  keys: MerchantKeys;
}

export interface Live extends LiveApi {
  browser: Browser;
}

/** Sets the account's live mode to the simulator, as `kasi processor set` does. */
export async function setLiveGateway(api: TestApi, accountId: string, gatewayUrl: string): Promise<void> {
  const account = (await findAccount(api.knex, accountId))!;
  const profile = { gatewayUrl, merchantId: 'TESTLANKATEA01', apiPassword: 'simulator', notificationSecret: NOTIFICATION_SECRET };
  await inTransaction(serviceDeps(api), (ctx) => setCardProcessor(ctx, { account, mode: 'live' }, profile));
}

/**
 * The service, the simulator on the service's clock (sending notifications with the secret when
 * `notifying`), and the live merchant.
 */
export async function startLiveApi(options: { notifying: boolean }): Promise<LiveApi> {
  const api = await startApi();
  const simulator = await startGatewaySimulator({ port: 0, notificationSecret: options.notifying ? NOTIFICATION_SECRET : null, clock: { now: () => api.clock.now() } });
  const { accountId, keys } = await api.merchant({ name: 'Lanka Tea House', activate: true, changes: { savedCards: true } });
  await setLiveGateway(api, accountId, simulator.url);
  return { api, simulator, accountId, keys };
}

/** startLiveApi with the browser (call in `before`: skipped where there is no chromium). */
export async function startLive(context: Mocha.Context): Promise<Live> {
  const browser = await launchChromium(context);
  return { browser, ...(await startLiveApi({ notifying: true })) };
}

export async function stopLive(live: Partial<Live>): Promise<void> {
  await live.browser?.close();
  await live.simulator?.close();
  await live.api?.close();
}

export async function liveCheckout(live: Live, body: Record<string, unknown> = {}): Promise<any> {
  const made = await live.api.request('/v1/checkouts', { key: live.keys.sk_live, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Tea Club, first box', ...body } });
  assert.equal(made.status, 201, made.text);
  return made.body;
}

export async function newPage(live: Live): Promise<Page> {
  return (await live.browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
}

/**
 * The customer on the checkout's page (details, the consent when `saveCard`), then on the
 * gateway's hosted page (card, 3-D Secure), and back: the page they land on once the service has
 * applied what the gateway says (or said it is still being confirmed).
 */
export async function payInBrowser(live: Live, page: Page, checkout: { url: string }, card: { expiry: string; cvv?: string; number?: string; saveCard?: boolean; email?: string }): Promise<void> {
  await page.goto(checkout.url);
  await page.getByLabel('Name').fill('Nimal Perera');
  await page.getByLabel('Email').fill(card.email ?? 'nimal@example.com');
  if (card.saveCard) await page.getByLabel(/Save this card/).check();
  await page.getByRole('button', { name: /^Pay Rs\./ }).click();
  await page.waitForURL((url) => url.toString().startsWith(live.simulator.url));
  await page.getByLabel('Card number').fill(card.number ?? '4111111111111111');
  await page.getByLabel('Expiry (MM/YY)').fill(card.expiry);
  await page.getByLabel('CVV').fill(card.cvv ?? '100');
  await page.getByRole('button', { name: /^Pay/ }).click();
  await page.getByRole('button', { name: 'Authenticate', exact: true }).click();
  await page.waitForURL((url) => url.toString().startsWith(live.api.url) && !url.pathname.endsWith('/return'));
  await live.api.workflows.settle();
}

export async function livePayment(live: Live, paymentId: string): Promise<any> {
  return (await live.api.request(`/v1/payments/${paymentId}`, { key: live.keys.sk_live })).body;
}
