// What a receiver answers is kept as text PostgreSQL accepts, whatever the bytes: a NUL once left
// an attempt unrecorded, and its event was sent again and again.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { storableText } from '../../net/webhook-http';
import { startApiWithMerchant, ik, type TestApi } from '../support/api';
import type { MerchantKeys } from '../../db/merchants';
import { eventually } from '../support/eventually';

describe('webhook response bodies', () => {
  it('keeps at most the limit in bytes, cut on a character, NUL and invalid UTF-8 as U+FFFD', () => {
    assert.equal(storableText(Buffer.from('ok'), 1024), 'ok');
    assert.equal(storableText(Buffer.from('a\0b'), 1024), 'a\uFFFDb');
    assert.equal(storableText(Buffer.from([0x61, 0xff, 0x62]), 1024), 'a\uFFFDb');
    // 'ශ' is 3 bytes: a limit of 4 keeps one and drops the cut second.
    assert.equal(storableText(Buffer.from('ශශ'), 4), 'ශ');
    assert.equal(storableText(Buffer.from('😀😀'), 6), '😀', 'never half a surrogate pair');
    assert.equal(storableText(Buffer.from('\0\0\0'), 4), '\uFFFD', 'replacements that grow past the limit are cut');
    const long = storableText(Buffer.from('x'.repeat(5000)), 1024);
    assert.equal(long.length, 1024);
  });

  describe('over HTTP', () => {
    let api: TestApi;
    let keys: MerchantKeys;
    let receiver: Server;
    let url: string;

    before(async () => {
      ({ api, keys } = await startApiWithMerchant());
      receiver = createServer((_req, res) => {
        res.statusCode = 200;
        res.end(Buffer.from('accepted\0\0 by \xff receiver', 'latin1'));
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    });
    after(async () => {
      receiver?.close();
      await api?.close();
    });

    it('a receiver answering with NUL bytes gets its attempt recorded, once, and the delivery ends', async () => {
      const endpoint = (await api.request('/v1/webhook_endpoints', { key: keys.sk_test, idempotencyKey: ik(), body: { url } })).body;
      const ping = await api.request(`/v1/webhook_endpoints/${endpoint.id}/ping`, { method: 'POST', key: keys.sk_test, idempotencyKey: ik() });
      assert.equal(ping.status, 202, ping.text);
      const delivery = await eventually(
        async () => (await api.request(`/v1/webhook_endpoints/${endpoint.id}/deliveries`, { key: keys.sk_test })).body.data[0],
        (d) => d.status !== 'pending',
      );
      assert.equal(delivery.status, 'delivered');
      assert.equal(delivery.attempts.length, 1);
      assert.equal(delivery.attempts[0].statusCode, 200);
      assert.equal(delivery.attempts[0].responseBody, 'accepted\uFFFD\uFFFD by \uFFFD receiver');
    });
  });
});
