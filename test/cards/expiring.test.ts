// card.expiring in virtual time (embedded engine: the clock starts where the test says): the
// monthly sweep on the 1st at 09:00 Sri Lankan time tells of active cards expiring next month that
// were kept before it, once per card, across a restart; and a card that has since expired is
// refused by the processor at once, so its charge is answered failed.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { startApi, type TestApi } from '../support/api';
import { charge, eventsAbout, payAndKeep } from './card-flow';

// 10:00 in Colombo on the 20th of January 2026; the sweeps are at 03:30 UTC on the 1st.
const START = new Date('2026-01-20T04:30:00.000Z');
const FEBRUARY_SWEEP = Date.parse('2026-02-01T03:30:00.000Z');
const MARCH_SWEEP = Date.parse('2026-03-01T03:30:00.000Z');

describe('saved cards: card.expiring and expired cards', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => {
    api = await startApi({ startAt: START });
    ({ keys } = await api.merchant({ activate: true }));
  });
  after(() => api?.close());

  const expiring = async () => api.knex('events').where({ type: 'card.expiring' }).orderBy('id');

  it('sent on the 1st at 09:00 (Colombo) for active cards expiring next month kept before then, once each, even across a restart', async () => {
    const march = (await payAndKeep(api, keys, { expiry: '03/26', email: 'march@example.com' })).card;
    const february = (await payAndKeep(api, keys, { expiry: '02/26', email: 'february@example.com' })).card;
    const deleted = (await payAndKeep(api, keys, { expiry: '03/26', email: 'deleted@example.com' })).card;
    const april = (await payAndKeep(api, keys, { expiry: '04/26', email: 'april@example.com' })).card;
    await api.request(`/v1/cards/${deleted.id}`, { method: 'DELETE', key: keys.sk_test });

    await api.clock.set(new Date(FEBRUARY_SWEEP - 1));
    await api.workflows.settle();
    assert.deepEqual(await expiring(), []);
    // Kept after 09:00 on the 20th... of January: before February's sweep. One kept on the 10th of
    // February expiring in March is after it, and is not told about (docs/reference/cards.md).
    await api.clock.set(new Date(FEBRUARY_SWEEP));
    await api.workflows.settle();
    let sent = await expiring();
    assert.deepEqual(sent.map((e) => e.data), [march], 'only the active card expiring in March');
    assert.equal(sent[0].created_at.toISOString(), '2026-02-01T03:30:00.000Z');

    await api.clock.set(new Date('2026-02-10T04:30:00.000Z'));
    const late = (await payAndKeep(api, keys, { expiry: '03/26', email: 'late@example.com' })).card;

    // A restart makes February's sweep again at boot (its instant has passed): nothing is sent twice.
    const restarted = await api.sibling();
    try {
      await restarted.workflows.settle();
      const swept = (await restarted.workflows.history('card-expiring/monthly')).events!.filter((e) => e.activityTaskCompletedEventAttributes);
      assert.equal(swept.length, 1, 'the restarted service made the sweep');
      await restarted.workflows.replay('card-expiring/monthly');
    } finally {
      await restarted.close();
    }
    assert.equal((await expiring()).length, 1);

    await api.clock.set(new Date(MARCH_SWEEP));
    await api.workflows.settle();
    sent = await expiring();
    assert.deepEqual(sent.map((e) => e.data.id), [march.id, april.id], 'March\'s sweep tells of April\'s card, and of nothing again');
    assert.equal((await eventsAbout(api, 'card.expiring', late.id)).length, 0);
    assert.equal((await eventsAbout(api, 'card.expiring', february.id)).length, 0);
    await api.workflows.replay('card-expiring/monthly');

    // February's card has expired: the processor refuses the charge at once.
    const refused = await charge(api, keys.sk_test, february.id, { amountCents: 150000, description: 'March' });
    assert.equal(refused.status, 201);
    assert.equal(refused.body.status, 'failed');
    assert.equal(refused.body.failureMessage, 'The card has expired.');
    assert.deepEqual((await api.request(`/v1/payments/${refused.body.id}`, { key: keys.sk_test })).body, refused.body);
    assert.deepEqual((await eventsAbout(api, 'payment.failed', refused.body.id)).map((e) => e.data), [refused.body]);
    assert.equal(await api.service.orchestration.port.describe(`charge/${refused.body.id}`), undefined, 'no workflow for a charge decided at once');
    // The key's answer is the failed payment.
    assert.equal((await api.knex('idempotency_keys').whereRaw("response_body::json->>'id' = ?", [refused.body.id]).first()).response_body, refused.text);
  });
});
