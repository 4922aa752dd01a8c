// `npx kasi gateway-simulator`: started as a user starts it, it prints where it listens and
// answers the adapter with the API password it was given (and no other).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createMastercardGatewayProcessor } from '../../processor/mastercard-gateway';

const bin = path.resolve(__dirname, '../../bin/kasi');

describe('kasi gateway-simulator', () => {
  it('prints "listening on http://127.0.0.1:<port>", answers with its API password, and stops on SIGTERM', async () => {
    const child = spawn(bin, ['gateway-simulator', '--port', '0', '--api-password', 'from-the-cli'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const lines = createInterface({ input: child.stdout });
      const [first] = (await Promise.race([once(lines, 'line'), once(child, 'exit').then(() => assert.fail('exited before listening'))])) as [string];
      const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first)?.[1];
      assert.ok(url, first);
      const session = { reference: 'pay_cli', amountCents: 1_000, merchantName: 'Lanka Tea House', locale: 'en' as const, returnUrl: 'http://127.0.0.1:1/return' };
      const adapter = createMastercardGatewayProcessor({ gatewayUrl: url, merchantId: 'TESTKASI', apiPassword: 'from-the-cli' });
      assert.match((await adapter.openSession(session)).redirectUrl, new RegExp(`^${url}/checkout/pay/SESSION\\d+\\?checkoutVersion=1\\.0\\.0$`));
      const wrong = createMastercardGatewayProcessor({ gatewayUrl: url, merchantId: 'TESTKASI', apiPassword: 'simulator' });
      await assert.rejects(wrong.openSession(session), /did not answer/);
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      assert.equal(code, 0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('refuses to start without a port', async () => {
    const child = spawn(bin, ['gateway-simulator'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 2);
    assert.match(stderr, /--port takes a port number/);
  });
});
