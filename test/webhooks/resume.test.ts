// Boot-time resuming of webhook deliveries: what was pending when the process stopped is sent.
import assert from 'node:assert/strict';
import { createPingDelivery } from '../../services/webhook-endpoints/ping';
import { createResumers } from '../../workers/resumers';
import { startApiWithMerchant, ik, type TestApi } from '../support/api';
import type { MerchantKeys } from '../../db/merchants';
import { eventually } from '../support/eventually';
import { startReceiver, type Receiver } from './receiver';

describe('webhook deliveries resumed on boot', () => {
  let api: TestApi;
  let keys: MerchantKeys;
  let receiver: Receiver;

  before(async () => {
    ({ api, keys } = await startApiWithMerchant());
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver?.close();
    await api?.close();
  });

  it('a test ping pending at a crash (its attempt never made) is sent by the resumed workflow', async () => {
    const endpoint = (await api.request('/v1/webhook_endpoints', { key: keys.sk_test, idempotencyKey: ik(), body: { url: receiver.url } })).body;
    const row = await api.knex('webhook_endpoints').where({ id: endpoint.id }).first();
    // Committed, and then the process died before the ping's workflow started.
    const ping = await createPingDelivery(api.knex, row, api.clock.now());
    const starts = (await Promise.all(createResumers({ db: api.knex, clock: api.clock }).map((resume) => resume()))).flat().filter((s) => (s.args[0] as string) === ping.id);
    assert.deepEqual(starts.map((s) => [s.workflowType, s.workflowId]), [['webhookResend', `webhook-resend/${ping.id}/1`]]);
    for (const start of starts) await api.service.orchestration.port.start(start);
    const delivery = await eventually(
      async () => (await api.request(`/v1/webhook_endpoints/${endpoint.id}/deliveries`, { key: keys.sk_test })).body.data.find((d: { id: string }) => d.id === ping.id),
      (d) => d?.status !== 'pending',
    );
    assert.equal(delivery.status, 'delivered');
    assert.equal(delivery.attempts.length, 1);
    const [got] = await receiver.waitFor(1);
    assert.match(got!.body, /"type":"test.ping"/);
  });
});
