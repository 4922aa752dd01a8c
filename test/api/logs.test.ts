// The operator's log lines, read from the service's own pino output: one per request (trace id,
// method, route template, status, duration, account and mode when authenticated; never a key, a
// body or a query string), one per payment outcome and one per webhook attempt.
import assert from 'node:assert/strict';
import { recordEvent } from '../../db/events';
import type { MerchantKeys } from '../../db/merchants';
import { payAtProcessor, get } from '../checkouts/hosted-flow';
import { startApiWithMerchant, ik, type TestApi } from '../support/api';
import { startReceiver, type Receiver } from '../webhooks/receiver';

const APPROVED = { number: '5123450000000008', expiry: '01/39', cvv: '100' };
const DECLINED = { ...APPROVED, expiry: '05/39' };
const DETAILS = { name: 'Nimal Perera', email: 'nimal@example.com', phone: '077 123 4567' };

describe('log lines', () => {
  let api: TestApi;
  let keys: MerchantKeys;
  let accountId: string;
  const lines: string[] = [];
  const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  let receiver: Receiver | undefined;

  before(async () => {
    ({ api, keys, accountId } = await startApiWithMerchant({ env: { LOG_LEVEL: 'info', KASI_WEBHOOK_TIMEOUT_MS: '500' }, logStream: { write: (line: string) => lines.push(line) } }));
  });
  after(async () => {
    await api?.close();
    await receiver?.close();
  });

  const requestLine = (traceId: string | null) => {
    const found = logged().filter((l) => l.msg === 'request' && l.traceId === traceId);
    assert.equal(found.length, 1, `one request line for ${traceId}`);
    return found[0]!;
  };

  it('logs each request once at info: trace id, method, route template, status, duration, account and mode', async () => {
    const res = await api.request('/v1/checkouts', { key: keys.sk_test, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Darjeeling for the secret garden' } });
    assert.equal(res.status, 201);
    const line = requestLine(res.headers.get('x-trace-id'));
    assert.equal(line.level, 30, 'info');
    assert.equal(line.method, 'POST');
    assert.equal(line.route, '/v1/checkouts');
    assert.equal(line.status, 201);
    assert.equal(typeof line.durationMs, 'number');
    assert.ok((line.durationMs as number) > 0);
    assert.equal(line.accountId, accountId);
    assert.equal(line.mode, 'test');

    const read = await api.request(`/v1/checkouts/${res.body.id}?expand=secret-${ik()}`, { key: keys.sk_test });
    const readLine = requestLine(read.headers.get('x-trace-id'));
    assert.equal(readLine.route, '/v1/checkouts/{id}');
    assert.equal(readLine.status, 400);

    const text = lines.join('\n');
    for (const secret of [keys.sk_test, 'Darjeeling', 'secret-', res.body.id]) assert.ok(!text.includes(secret), `the log holds no ${secret}`);
  });

  it('logs an unauthenticated request without an account, and probes at debug only', async () => {
    const res = await api.request('/v1/account', { key: 'sk_test_' + 'x'.repeat(32) });
    assert.equal(res.status, 401);
    const line = requestLine(res.headers.get('x-trace-id'));
    assert.equal(line.status, 401);
    assert.equal(line.route, '/v1/account');
    assert.ok(!('accountId' in line) && !('mode' in line));
    const probe = await fetch(`${api.url}/healthz`);
    assert.equal(logged().filter((l) => l.traceId === probe.headers.get('x-trace-id')).length, 0, 'not at info');
  });

  it('logs each payment outcome: succeeded, and failed with its failure code', async () => {
    const open = async () => (await api.request('/v1/checkouts', { key: keys.sk_test, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Tea' } })).body;
    const declined = await open();
    await get(await payAtProcessor(api, declined.url, DECLINED, DETAILS));
    await api.workflows.settle();
    const paid = await open();
    await get(await payAtProcessor(api, paid.url, APPROVED, DETAILS));
    await api.workflows.settle();
    const outcomes = logged().filter((l) => typeof l.msg === 'string' && (l.msg as string).startsWith('payment '));
    const failed = outcomes.filter((l) => l.paymentId === declined.payment.id);
    assert.deepEqual(
      failed.map(({ msg, level, paymentId, checkoutId, accountId: account, mode, amountCents, attempt, failureCode }) => ({ msg, level, paymentId, checkoutId, account, mode, amountCents, attempt, failureCode })),
      [{ msg: 'payment failed', level: 30, paymentId: declined.payment.id, checkoutId: declined.id, account: accountId, mode: 'test', amountCents: 350000, attempt: 1, failureCode: 'card_declined' }],
    );
    const succeeded = outcomes.filter((l) => l.paymentId === paid.payment.id);
    assert.equal(succeeded.length, 1);
    assert.equal(succeeded[0]!.msg, 'payment succeeded');
    assert.equal(succeeded[0]!.amountCents, 350000);
    assert.equal(succeeded[0]!.failureCode, null);
    assert.ok(!lines.join('\n').includes(APPROVED.number), 'no card number');
  });

  it('logs each webhook attempt: delivery, endpoint, event type, attempt, status code or error, latency', async () => {
    receiver = await startReceiver();
    receiver.statuses = [500];
    const endpoint = await api.request('/v1/webhook_endpoints', { key: keys.sk_test, body: { url: receiver.url, eventTypes: ['payment.failed'] }, idempotencyKey: ik() });
    assert.equal(endpoint.status, 201, endpoint.text);
    await api.knex.transaction((trx) => recordEvent(trx, { accountId, mode: 'test', type: 'payment.failed', data: { object: 'payment' }, now: api.clock.now() }));
    await receiver.waitFor(1);
    await api.workflows.settle();
    await api.clock.advance(60_000);
    await receiver.waitFor(2);
    await api.workflows.settle();
    const attempts = logged().filter((l) => l.msg === 'webhook attempt' && l.endpointId === endpoint.body.id);
    assert.equal(attempts.length, 2);
    const [first, second] = attempts;
    assert.match(String(first!.deliveryId), /^whd_[0-9a-z]{24}$/);
    assert.equal(second!.deliveryId, first!.deliveryId);
    assert.deepEqual(
      attempts.map(({ level, eventType, attempt, statusCode, error, outcome, accountId: account, mode }) => ({ level, eventType, attempt, statusCode, error, outcome, account, mode })),
      [
        { level: 30, eventType: 'payment.failed', attempt: 1, statusCode: 500, error: null, outcome: 'retried', account: accountId, mode: 'test' },
        { level: 30, eventType: 'payment.failed', attempt: 2, statusCode: 200, error: null, outcome: 'delivered', account: accountId, mode: 'test' },
      ],
    );
    for (const a of attempts) assert.equal(typeof a.latencyMs, 'number');
    // An endpoint that does not answer: the error instead of a status code.
    await receiver.close();
    const ping = await api.request(`/v1/webhook_endpoints/${endpoint.body.id}/ping`, { key: keys.sk_test, method: 'POST', idempotencyKey: ik() });
    assert.equal(ping.status, 202, ping.text);
    await api.workflows.settle();
    const failed = logged().filter((l) => l.msg === 'webhook attempt' && l.deliveryId === ping.body.id);
    assert.equal(failed.length, 1);
    assert.equal(failed[0]!.statusCode, null);
    assert.match(String(failed[0]!.error), /ECONNREFUSED|refused/i);
    assert.equal(failed[0]!.outcome, 'failed');
    assert.equal(failed[0]!.eventType, 'test.ping');
  });
});
