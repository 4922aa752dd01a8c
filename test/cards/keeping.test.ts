// Keeping a card at a hosted checkout: the Saved card, card.saved or card.save_failed, the
// payment's cardSave, and the customer's default card.
import assert from 'node:assert/strict';
import { MESSAGES } from '../../api/pages/messages';
import type { MerchantKeys } from '../../db/merchants';
import { settleAttempt } from '../../services/checkouts/settle-attempt';
import { createResumers } from '../../workers/resumers';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { eventsAbout, payAndKeep, serviceDeps } from './card-flow';

describe('saved cards: keeping the card at checkout', function () {
  this.timeout(60_000);
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => {
    ({ api, keys } = await startApiWithMerchant());
    await api.knex('accounts').update({ name: 'Lanka Tea House' });
  });
  after(() => api?.close());

  it('consent ticked: the card is kept, cardSave saved, card.saved after payment.succeeded carries the Saved card', async () => {
    const paidAt = api.clock.now();
    const { payment, card } = await payAndKeep(api, keys);
    assert.equal(payment.cardSave, 'saved');
    assert.equal(payment.savedCardId, null, 'savedCardId is for charges made with a saved card');
    assert.match(card.id, /^card_[0-9a-z]{24}$/);
    assert.deepEqual(card, {
      object: 'saved_card',
      id: card.id,
      mode: 'test',
      customerEmail: 'nimal@example.com',
      scheme: 'mastercard',
      last4: '0008',
      expiry: { month: 1, year: 2039 },
      paymentId: payment.id,
      consent: { agreedAt: paidAt.toISOString(), locale: 'en', wording: MESSAGES.en.saveCard.replace('{merchant}', 'Lanka Tea House') },
      active: true,
      createdAt: payment.succeededAt,
      retiredAt: null,
    });
    const [succeeded] = await eventsAbout(api, 'payment.succeeded', payment.id);
    const [saved, ...more] = await eventsAbout(api, 'card.saved', card.id);
    assert.equal(more.length, 0);
    assert.deepEqual(saved.data, card);
    assert.ok(saved.id > succeeded.id, 'card.saved follows payment.succeeded');
    assert.equal(succeeded.data.cardSave, 'requested', 'payment.succeeded shows the payment as it succeeded');
    // The processor keeps the token; the service only what the processor reported.
    const token = await api.knex('sandbox_tokens').where({ token: (await api.knex('saved_cards').where({ id: card.id }).first()).processor_token }).first();
    assert.deepEqual([token.scheme, token.last4, token.expiry_month, token.expiry_year], ['mastercard', '0008', 1, 2039]);
  });

  it('the consent is kept in the language the customer saw (si)', async () => {
    const { card } = await payAndKeep(api, keys, { locale: 'si', email: 'sita@example.com' });
    assert.equal(card.consent.locale, 'si');
    assert.equal(card.consent.wording, MESSAGES.si.saveCard.replace('{merchant}', 'Lanka Tea House'));
  });

  it('consent not ticked: no card, cardSave not_requested, no card event', async () => {
    const { payment, card } = await payAndKeep(api, keys, { consent: false, email: 'none@example.com' });
    assert.equal(card, null);
    assert.equal(payment.cardSave, 'not_requested');
    assert.equal((await api.knex('events').where({ type: 'card.saved' }).whereRaw("data->>'paymentId' = ?", [payment.id])).length, 0);
  });

  it('08/39: paid, but the sandbox will not keep it: cardSave failed, card.save_failed with the Payment, no card.saved', async () => {
    const { payment, card } = await payAndKeep(api, keys, { expiry: '08/39', email: 'fail@example.com' });
    assert.equal(card, null);
    assert.equal(payment.status, 'succeeded');
    assert.equal(payment.cardSave, 'failed');
    const failed = await eventsAbout(api, 'card.save_failed', payment.id);
    assert.deepEqual(failed.map((e) => e.data), [payment]);
    assert.equal((await api.knex('events').where({ type: 'card.saved' }).whereRaw("data->>'paymentId' = ?", [payment.id])).length, 0);
    assert.equal(await api.knex('sandbox_tokens').where({ reference: `${payment.id}.1` }).first(), undefined);
  });

  it('the card becomes the defaultCardId of the customer with that email (any letter case), the newest card winning', async () => {
    const created = await api.request('/v1/customers', { key: keys.sk_test, idempotencyKey: ik(), body: { email: 'Kamal@Example.com' } });
    assert.equal(created.body.defaultCardId, null);
    const first = await payAndKeep(api, keys, { email: 'kamal@example.com' });
    let customer = (await api.request(`/v1/customers/${created.body.id}`, { key: keys.sk_test })).body;
    assert.equal(customer.defaultCardId, first.card.id);
    const second = await payAndKeep(api, keys, { email: 'KAMAL@example.com' });
    customer = (await api.request(`/v1/customers/${created.body.id}`, { key: keys.sk_test })).body;
    assert.equal(customer.defaultCardId, second.card.id);
    // No customer with the email: nothing to set, and the card is kept all the same.
    assert.equal((await api.knex('customers').where({ default_card_id: (await payAndKeep(api, keys, { email: 'nobody@example.com' })).card.id })).length, 0);
  });

  it('a settlement applied again (a retried activity) keeps no second card and sends no second card.saved', async () => {
    const { checkout, payment, card } = await payAndKeep(api, keys, { email: 'twice@example.com' });
    assert.equal(await settleAttempt(serviceDeps(api), checkout.id, 1), 'succeeded');
    assert.equal((await api.knex('saved_cards').where({ payment_id: payment.id })).length, 1);
    assert.equal((await eventsAbout(api, 'card.saved', card.id)).length, 1);
    assert.equal((await api.knex('sandbox_tokens').where({ reference: `${payment.id}.1` })).length, 1);
  });

  it('a card the process stopped before keeping is kept at the next boot, by the checkout\'s lifetime applying its attempt again', async () => {
    const { checkout, payment } = await payAndKeep(api, keys, { email: 'restart@example.com', consent: false });
    // As if the process had stopped after the payment's success committed, before the keeping.
    await api.knex('payments').where({ id: payment.id }).update({ card_save: 'requested', card_consent_at: api.clock.now(), card_consent_locale: 'en', card_consent_wording: 'Save this card' });
    const starts = (await Promise.all(createResumers({ db: api.knex, clock: api.service.clock }).map((resume) => resume()))).flat().filter((s) => s.workflowId === `checkout/${checkout.id}`);
    assert.deepEqual(starts.map((s) => s.args), [[{ checkoutId: checkout.id, expiresAt: checkout.expiresAt, attemptInFlight: 1 }]]);
    // A second server on the database boots as a restarted one does, with an empty engine.
    const restarted = await api.sibling();
    try {
      await restarted.workflows.settle();
      const kept = await api.knex('saved_cards').where({ payment_id: payment.id }).first();
      assert.ok(kept, 'the card was kept');
      assert.equal((await api.request(`/v1/payments/${payment.id}`, { key: keys.sk_test })).body.cardSave, 'saved');
      assert.equal((await eventsAbout(api, 'card.saved', kept.id)).length, 1);
      assert.equal(await restarted.engine.result(`checkout/${checkout.id}`), 'completed');
      await restarted.workflows.replay(`checkout/${checkout.id}`);
    } finally {
      await restarted.close();
    }
  });
});
