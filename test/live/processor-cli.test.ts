// `kasi processor set|show` as an operator runs them (bin/kasi in a child process, on the running
// server's database), DESIGN.md's fixed shapes; and a live Pay before a processor is set: 501,
// saying which command sets one.
import assert from 'node:assert/strict';
import { findCheckout } from '../../db/checkouts';
import type { MerchantKeys } from '../../db/merchants';
import type { ApiError } from '../../domain/errors';
import { startGatewaySimulator } from '../../processor/gateway-simulator';
import { payCheckout } from '../../services/checkouts/pay';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { runKasi } from '../support/kasi';
import { serviceDeps } from '../cards/card-flow';
import { postPay } from '../checkouts/hosted-flow';

describe('kasi processor set|show', function () {
  // Each command is a process of its own (tsx compiling the CLI): seconds each under a loaded suite.
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  let accountId: string;
  const kasi = (...args: string[]) => runKasi({ DATABASE_URL: api.databaseUrl }, ...args);

  before(async () => ({ api, keys, accountId } = await startApiWithMerchant()));
  after(() => api?.close());

  it('a live Pay before a live processor is set answers 501, naming `kasi processor set`', async () => {
    const checkout = (await api.request('/v1/checkouts', { key: keys.sk_live, idempotencyKey: ik(), body: { amountCents: 250000, description: 'Tea, 1 kg' } })).body;
    const page = await postPay(checkout.url, { name: 'Nimal Perera', email: 'nimal@example.com' });
    assert.equal(page.status, 501, page.text);
    const pay = payCheckout(serviceDeps(api), { checkoutId: checkout.id, customer: null, cardConsent: null, locale: 'en', merchantName: 'Test Merchant', returnUrl: () => api.url }, (await findCheckout(api.knex, checkout.id))!);
    await assert.rejects(pay, (err: ApiError) => {
      assert.equal(err.code, 'NOT_SUPPORTED');
      assert.equal(err.message, `No card processor takes this account's live payments yet: an operator sets the bank's gateway with \`kasi processor set ${accountId} --mode live --gateway-url <url> --merchant-id <id> --api-password <pw>\`.`);
      return true;
    });
    assert.equal((await api.request(`/v1/payments/${checkout.payment.id}`, { key: keys.sk_live })).body.status, 'requires_payment_method', 'nothing taken');
  });

  it('sets a mode\'s gateway profile and shows it, never printing the secrets, which are kept sealed', async () => {
    const before = await kasi('processor', 'show', accountId, '--json');
    assert.equal(before.code, 0, before.stderr);
    assert.deepEqual(JSON.parse(before.stdout), [{ mode: 'test', processor: 'sandbox' }]);

    const set = await kasi('processor', 'set', accountId, '--mode', 'live', '--gateway-url', 'https://cbcmpgs.gateway.mastercard.com/', '--merchant-id', 'TESTKASI01', '--api-password', 'pw-7f3a9c', '--notification-secret', 'note-secret-5c1e8b2d', '--json');
    assert.equal(set.code, 0, set.stderr);
    assert.deepEqual(JSON.parse(set.stdout), { accountId, mode: 'live', processor: 'mastercard_gateway', gatewayUrl: 'https://cbcmpgs.gateway.mastercard.com', merchantId: 'TESTKASI01' });
    const shown = await kasi('processor', 'show', accountId, '--json');
    assert.deepEqual(JSON.parse(shown.stdout), [
      { mode: 'test', processor: 'sandbox' },
      { mode: 'live', processor: 'mastercard_gateway', gatewayUrl: 'https://cbcmpgs.gateway.mastercard.com', merchantId: 'TESTKASI01' },
    ]);
    const text = await kasi('processor', 'show', accountId);
    for (const out of [set.stdout, shown.stdout, text.stdout]) assert.ok(!/pw-7f3a9c|note-secret-5c1e8b2d/.test(out), out);
    const [row] = await api.knex('card_processors').where({ account_id: accountId, mode: 'live' });
    assert.ok(!JSON.stringify(row).includes('pw-7f3a9c') && !JSON.stringify(row).includes('note-secret-5c1e8b2d'), 'sealed, not stored as given');
    assert.match(row.api_password_box, /^v1\./);

    // Test mode pointed at a gateway test profile; set again, the new profile replaces the old.
    assert.equal((await kasi('processor', 'set', accountId, '--mode', 'test', '--gateway-url', 'http://127.0.0.1:4999', '--merchant-id', 'SIM', '--api-password', 'simulator')).code, 0);
    assert.equal((await kasi('processor', 'set', accountId, '--mode', 'test', '--gateway-url', 'http://127.0.0.1:5000', '--merchant-id', 'SIM2', '--api-password', 'simulator')).code, 0);
    assert.deepEqual(JSON.parse((await kasi('processor', 'show', accountId, '--json')).stdout)[0], { mode: 'test', processor: 'mastercard_gateway', gatewayUrl: 'http://127.0.0.1:5000', merchantId: 'SIM2' });
  });

  it('refuses what cannot be a gateway profile, changing nothing', async () => {
    const plain = await kasi('processor', 'set', accountId, '--mode', 'live', '--gateway-url', 'http://gateway.example.com', '--merchant-id', 'X1', '--api-password', 'pw');
    assert.deepEqual([plain.code, plain.stderr.split('\n')[0]], [2, 'kasi: --gateway-url must use https (http only on this machine, for the gateway simulator)']);
    const noPassword = await kasi('processor', 'set', accountId, '--mode', 'live', '--gateway-url', 'https://gateway.example.com', '--merchant-id', 'X1');
    assert.deepEqual([noPassword.code, noPassword.stderr.split('\n')[0]], [2, 'kasi: --api-password is required']);
    const badMode = await kasi('processor', 'set', accountId, '--mode', 'sandbox', '--gateway-url', 'https://gateway.example.com', '--merchant-id', 'X1', '--api-password', 'pw');
    assert.equal(badMode.code, 2);
    const unknown = await kasi('processor', 'show', 'acct_000000000000000000000000');
    assert.deepEqual([unknown.code, unknown.stderr.trim()], [1, 'kasi: no account acct_000000000000000000000000']);
    assert.equal(JSON.parse((await kasi('processor', 'show', accountId, '--json')).stdout)[1].gatewayUrl, 'https://cbcmpgs.gateway.mastercard.com');
  });

  it('a profile set again from the CLI holds for the running server\'s next Pay, without a restart', async () => {
    const simulators = [await startGatewaySimulator({ port: 0 }), await startGatewaySimulator({ port: 0 })];
    try {
      for (const simulator of simulators) {
        const set = await kasi('processor', 'set', accountId, '--mode', 'live', '--gateway-url', simulator.url, '--merchant-id', 'TESTKASI01', '--api-password', 'simulator');
        assert.equal(set.code, 0, set.stderr);
        const checkout = (await api.request('/v1/checkouts', { key: keys.sk_live, idempotencyKey: ik(), body: { amountCents: 250000, description: 'Tea, 1 kg' } })).body;
        const pay = await postPay(checkout.url, { name: 'Nimal Perera', email: 'nimal@example.com' });
        assert.equal(pay.status, 303, pay.text);
        assert.ok(pay.location!.startsWith(`${simulator.url}/checkout/pay/`), pay.location!);
      }
    } finally {
      await Promise.all(simulators.map((s) => s.close()));
    }
  });
});
