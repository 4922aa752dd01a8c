// Webhook delivery end to end: events recorded as a change would record them, the dispatcher,
// one workflow per (event, endpoint) in virtual time on either engine (one spec file each), and a
// real receiver on 127.0.0.1.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { recordEvent } from '../../db/events';
import { verifyWebhook } from '../../sdk/index';
import { workflowIdFor } from '../../orchestration';
import { skipUnlessInstalled, startApi, ik, type EngineKind, type TestApi } from '../support/api';
import { ahead, assertInstant, by } from '../support/instants';
import { startReceiver, type Receiver } from './receiver';

const MINUTE = 60_000;

export function describeWebhookDelivery(engine: EngineKind): void {
  describe(`webhook delivery (${engine})`, () => {
    let api: TestApi;
    let merchant: Awaited<ReturnType<TestApi['merchant']>>;
    const receivers: Receiver[] = [];

    before(async function () {
      skipUnlessInstalled(this, engine);
      api = await startApi({ engine, env: { KASI_WEBHOOK_TIMEOUT_MS: '500' } });
      merchant = await api.merchant({ activate: true });
    });
    after(async () => {
      await api?.close();
      for (const r of receivers) await r.close();
    });

    async function receiver(): Promise<Receiver> {
      const r = await startReceiver();
      receivers.push(r);
      return r;
    }

    async function addEndpoint(url: string, extra: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
      const res = await api.request('/v1/webhook_endpoints', { key: merchant.keys.sk_test, body: { url, ...extra }, idempotencyKey: ik() });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return { id: res.body.id, secret: res.body.secret };
    }

    async function emit(type: 'payment.succeeded' | 'payment.failed' = 'payment.succeeded', mode: 'test' | 'live' = 'test') {
      return api.knex.transaction((trx) =>
        recordEvent(trx, { accountId: merchant.accountId, mode, type, data: { object: 'payment', id: 'pay_000000000000000000000001', amountCents: 350000 }, now: api.clock.now() }),
      );
    }

    async function delivery(endpointId: string) {
      const res = await api.request(`/v1/webhook_endpoints/${endpointId}/deliveries`, { key: merchant.keys.sk_test });
      assert.equal(res.status, 200);
      return res.body.data[0];
    }

    const settle = () => api.workflows.settle();

    it('POSTs the exact event JSON, signed, with a delivery id and user agent', async () => {
      const r = await receiver();
      const endpoint = await addEndpoint(r.url);
      const sentFrom = api.clock.now();
      const event = await emit();
      const [got] = await r.waitFor(1);
      const listed = await api.request(`/v1/events/${event.id}`, { key: merchant.keys.sk_test });
      assert.equal(got!.body, listed.text, 'the body is exactly the event as the API shows it');
      assert.equal(got!.headers['content-type'], 'application/json');
      assert.match(String(got!.headers['user-agent']), /^Kasi-Webhooks\//);
      assert.match(String(got!.headers['service-delivery-id']), /^whd_[0-9a-z]{24}$/);
      const header = String(got!.headers['service-signature']);
      verifyWebhook(got!.body, header, endpoint.secret, { now: api.clock.now() });
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header)!;
      assert.equal(v1, createHmac('sha256', endpoint.secret).update(`${t}.${got!.body}`).digest('hex'));
      await settle();
      const d = await delivery(endpoint.id);
      assert.equal(d.status, 'delivered');
      assert.equal(d.attempts.length, 1);
      assert.equal(d.attempts[0].statusCode, 200);
      assertInstant(api.clock, d.attempts[0].attemptedAt, sentFrom, 'attempted as the event was recorded');
      assert.equal(Number(t), Math.floor(Date.parse(d.attempts[0].attemptedAt) / 1000), 'signed at the attempt');
    });

    it('keeps the connection to a receiver alive between deliveries', async () => {
      const r = await receiver();
      await addEndpoint(r.url);
      for (let i = 0; i < 3; i++) {
        await emit();
        await settle();
      }
      await r.waitFor(3);
      assert.equal(r.connections, 1);
    });

    it('signs with both secrets for 24 hours after a rotation; either verifies', async () => {
      const r = await receiver();
      const endpoint = await addEndpoint(r.url);
      const rotated = await api.request(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, { method: 'POST', key: merchant.keys.sk_test, idempotencyKey: ik() });
      assert.equal(rotated.status, 200);
      assert.notEqual(rotated.body.secret, endpoint.secret);
      await emit();
      const [got] = await r.waitFor(1);
      const header = String(got!.headers['service-signature']);
      assert.equal(header.split(',').filter((p) => p.startsWith('v1=')).length, 2);
      verifyWebhook(got!.body, header, endpoint.secret, { now: api.clock.now() });
      verifyWebhook(got!.body, header, rotated.body.secret, { now: api.clock.now() });
      await settle();
      await api.clock.advance(24 * 60 * MINUTE);
      await emit();
      const [, later] = await r.waitFor(2);
      assert.equal(String(later!.headers['service-signature']).split(',').length, 2, 'only the new secret signs after 24 hours');
      verifyWebhook(later!.body, String(later!.headers['service-signature']), rotated.body.secret, { now: api.clock.now() });
    });

    it('retries a failing receiver after 1, 5 and 30 minutes: 4 attempts at 0, 1, 6 and 36 minutes', async () => {
      const r = await receiver();
      r.statuses = [500, 503, 404];
      const endpoint = await addEndpoint(r.url);
      const start = api.clock.now().getTime();
      await emit();
      await r.waitFor(1);
      await settle();
      for (const [minutes, expected] of [[1, 2], [5, 3], [30, 4]] as const) {
        const due = Date.parse((await delivery(endpoint.id)).attempts.at(-1).attemptedAt) + minutes * MINUTE;
        await api.clock.set(ahead(api.clock, due - 1));
        assert.equal(r.received.length, expected - 1, `nothing before the ${minutes}-minute mark`);
        await api.clock.set(by(api.clock, due));
        await r.waitFor(expected);
        await settle();
      }
      const d = await delivery(endpoint.id);
      assert.equal(d.status, 'delivered');
      assert.equal(d.attempts.length, 4);
      [0, 1, 6, 36].forEach((minutes, i) => assertInstant(api.clock, d.attempts[i].attemptedAt, start + minutes * MINUTE, `attempt ${i + 1} at ${minutes} minutes`));
      assert.deepEqual(d.attempts.map((a: { statusCode: number }) => a.statusCode), [500, 503, 404, 200]);
      assert.equal(d.attempts[0].responseBody, 'failing with 500');
      await api.clock.advance(24 * 60 * MINUTE);
      assert.equal(r.received.length, 4, 'nothing more after success');
      await api.workflows.replay(workflowIdFor('webhook-delivery', d.id));
    });

    it('gives a receiver down for a day 7 attempts (1, 5, 30 minutes, then 2, 6, 12 hours), then fails the delivery', async () => {
      const r = await receiver();
      r.fallback = 502;
      const endpoint = await addEndpoint(r.url);
      await emit();
      await r.waitFor(1);
      await settle();
      await api.clock.advance(24 * 60 * MINUTE);
      await settle();
      const d = await delivery(endpoint.id);
      assert.equal(r.received.length, 7);
      assert.equal(d.attempts.length, 7);
      assert.equal(d.status, 'failed');
      assert.ok(d.failedAt);
      const first = Date.parse(d.attempts[0].attemptedAt);
      [0, 1, 6, 36, 156, 516, 1236].forEach((minutes, i) => assertInstant(api.clock, d.attempts[i].attemptedAt, first + minutes * MINUTE, `attempt ${i + 1} at ${minutes} minutes`));
      await api.workflows.replay(workflowIdFor('webhook-delivery', d.id));

      // A failed delivery can be re-sent by hand once the receiver is back.
      r.fallback = 200;
      const resent = await api.request(`/v1/webhook_deliveries/${d.id}/resend`, { method: 'POST', key: merchant.keys.sk_test, idempotencyKey: ik() });
      assert.equal(resent.status, 202);
      await r.waitFor(8);
      await settle();
      const after = await delivery(endpoint.id);
      assert.equal(after.status, 'delivered');
      assert.equal(after.attempts.length, 8);
    });

    it('counts a receiver slower than the timeout as failed, and one slow endpoint never delays another', async () => {
      const slow = await receiver();
      slow.delayMs = 2000;
      const fast = await receiver();
      const slowEndpoint = await addEndpoint(slow.url);
      await addEndpoint(fast.url);
      await emit();
      const [got] = await fast.waitFor(1);
      const [slowGot] = await slow.waitFor(1);
      // The slow endpoint is dispatched first; had deliveries waited on each other, the fast one
      // would have waited for the slow one's 500 ms timeout.
      assert.ok(got!.receivedAt < slowGot!.receivedAt + 500, `the fast endpoint waited ${got!.receivedAt - slowGot!.receivedAt} ms after the slow one`);
      await settle();
      const d = await delivery(slowEndpoint.id);
      assert.equal(d.status, 'pending');
      assert.equal(d.attempts[0].statusCode, null);
      assert.match(d.attempts[0].error, /no answer within 500 ms/);
      assert.ok(d.attempts[0].latencyMs >= 500);
      assert.equal(Date.parse(d.nextAttemptAt) - Date.parse(d.attempts[0].attemptedAt), MINUTE);
    });

    it('sends only the event types an endpoint asked for, only to enabled endpoints, only of the event\'s mode', async () => {
      const filtered = await receiver();
      const disabled = await receiver();
      const all = await receiver();
      await addEndpoint(filtered.url, { eventTypes: ['payment.failed'] });
      const off = await addEndpoint(disabled.url);
      await api.request(`/v1/webhook_endpoints/${off.id}`, { key: merchant.keys.sk_test, body: { enabled: false }, idempotencyKey: ik() });
      await addEndpoint(all.url);
      await emit('payment.succeeded');
      await emit('payment.succeeded', 'live');
      await emit('payment.failed');
      await all.waitFor(2);
      await filtered.waitFor(1);
      await settle();
      // One delivery workflow per (event, endpoint), running side by side: which events arrive is
      // the rule, not in which order (on Temporal's server they may cross).
      assert.deepEqual(all.received.map((r) => JSON.parse(r.body).type).sort(), ['payment.failed', 'payment.succeeded']);
      assert.deepEqual(filtered.received.map((r) => JSON.parse(r.body).type), ['payment.failed']);
      assert.equal(disabled.received.length, 0);
    });

    it('sends test.ping to one endpoint alone, and never lists it as an event', async () => {
      const pinged = await receiver();
      const other = await receiver();
      const endpoint = await addEndpoint(pinged.url);
      await addEndpoint(other.url);
      const res = await api.request(`/v1/webhook_endpoints/${endpoint.id}/ping`, { method: 'POST', key: merchant.keys.sk_test, idempotencyKey: ik() });
      assert.equal(res.status, 202);
      const [got] = await pinged.waitFor(1);
      const ping = verifyWebhook<{ type: string; data: unknown }>(got!.body, String(got!.headers['service-signature']), endpoint.secret, { now: api.clock.now() });
      assert.equal(ping.type, 'test.ping');
      assert.equal(JSON.stringify(ping.data).includes('payment'), false);
      await settle();
      assert.equal(other.received.length, 0);
      const events = await api.request('/v1/events?limit=100', { key: merchant.keys.sk_test });
      assert.ok(events.body.data.every((e: { type: string }) => e.type !== 'test.ping'));
      assert.equal((await api.request('/v1/events?type=test.ping', { key: merchant.keys.sk_test })).status, 400);
    });

    it('marks a ping that failed as failed, so it can be re-sent', async () => {
      const r = await receiver();
      r.fallback = 500;
      const endpoint = await addEndpoint(r.url);
      const ping = await api.request(`/v1/webhook_endpoints/${endpoint.id}/ping`, { method: 'POST', key: merchant.keys.sk_test, idempotencyKey: ik() });
      await r.waitFor(1);
      await settle();
      const failed = (await api.request(`/v1/webhook_endpoints/${endpoint.id}/deliveries`, { key: merchant.keys.sk_test })).body.data.find((d: { id: string }) => d.id === ping.body.id);
      assert.equal(failed.status, 'failed');
      r.fallback = 200;
      const resent = await api.request(`/v1/webhook_deliveries/${ping.body.id}/resend`, { method: 'POST', key: merchant.keys.sk_test, idempotencyKey: ik() });
      assert.equal(resent.status, 202);
      await r.waitFor(2);
    });

    it('counts a name server that never answers against the attempt\'s budget', async () => {
      const slowDns = await startApi({ engine, env: { KASI_WEBHOOK_TIMEOUT_MS: '300' }, resolveHost: () => new Promise(() => undefined) });
      try {
        const m = await slowDns.merchant();
        const created = await slowDns.request('/v1/webhook_endpoints', { key: m.keys.sk_test, body: { url: 'https://never-answers.example/hook' }, idempotencyKey: ik() });
        assert.equal(created.status, 201);
        const started = Date.now();
        await slowDns.request(`/v1/webhook_endpoints/${created.body.id}/ping`, { method: 'POST', key: m.keys.sk_test, idempotencyKey: ik() });
        await slowDns.workflows.settle();
        const d = (await slowDns.request(`/v1/webhook_endpoints/${created.body.id}/deliveries`, { key: m.keys.sk_test })).body.data[0];
        assert.match(d.attempts[0].error, /resolving never-answers.example took longer than 300 ms/);
        assert.ok(Date.now() - started < 2000);
      } finally {
        await slowDns.close();
      }
    });

    it('does not dispatch an event whose transaction rolled back', async () => {
      const r = await receiver();
      await addEndpoint(r.url);
      await api.knex
        .transaction(async (trx) => {
          await recordEvent(trx, { accountId: merchant.accountId, mode: 'test', type: 'payment.succeeded', data: {}, now: api.clock.now() });
          throw new Error('the change failed');
        })
        .catch(() => undefined);
      await settle();
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(r.received.length, 0);
    });
  });
}
