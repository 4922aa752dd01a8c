// Keeping a card at a hosted checkout: the Saved card, card.saved or card.save_failed, the
// payment's cardSave, and whose default card it becomes (never an existing customer's from what a
// payer typed: a payment link, a publishable key's checkout, the page's form).
import assert from 'node:assert/strict';
import { MESSAGES } from '../../api/pages/messages';
import type { MerchantKeys } from '../../db/merchants';
import { settleAttempt } from '../../services/checkouts/settle-attempt';
import { createResumers } from '../../workers/resumers';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { get, payAtProcessor } from '../checkouts/hosted-flow';
import { billingFlow } from '../invoices/billing-flow';
import { payerCheckout } from '../payment-links/link-flow';
import { DETAILS, eventsAbout, payAndKeep, serviceDeps } from './card-flow';

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

  it('the card becomes the defaultCardId of the customer the merchant named (any letter case), the newest card winning', async () => {
    const created = await api.request('/v1/customers', { key: keys.sk_test, idempotencyKey: ik(), body: { email: 'Kamal@Example.com' } });
    assert.equal(created.body.defaultCardId, null);
    const first = await payAndKeep(api, keys, { email: 'kamal@example.com' });
    let customer = (await api.request(`/v1/customers/${created.body.id}`, { key: keys.sk_test })).body;
    assert.equal(customer.defaultCardId, first.card.id);
    assert.equal(first.card.customerEmail, 'Kamal@Example.com', 'the card is its customer\'s');
    const second = await payAndKeep(api, keys, { email: 'KAMAL@example.com' });
    customer = (await api.request(`/v1/customers/${created.body.id}`, { key: keys.sk_test })).body;
    assert.equal(customer.defaultCardId, second.card.id);
  });

  it('no customer with the email: a new customer is made from the payer\'s details, the card its default; a customer made later is that one', async () => {
    for (const typed of [false, true]) {
      const email = `first-time-${typed}@example.com`;
      const { card } = await payAndKeep(api, keys, { email, typed, locale: 'si' });
      const [customer, ...more] = (await api.request(`/v1/customers?email=${email}`, { key: keys.sk_test })).body.data;
      assert.equal(more.length, 0);
      assert.deepEqual([customer.email, customer.name, customer.phone, customer.locale, customer.defaultCardId], [email, 'Nimal Perera', '+94771234567', 'si', card.id]);
      const later = await api.request('/v1/customers', { key: keys.sk_test, idempotencyKey: ik(), body: { email } });
      assert.deepEqual([later.body.id, later.body.defaultCardId], [customer.id, card.id]);
    }
  });

  it('details the payer typed on the page never make the card an existing customer\'s default', async () => {
    const existing = (await api.request('/v1/customers', { key: keys.sk_test, idempotencyKey: ik(), body: { email: 'sunil@example.com' } })).body;
    const named = await payAndKeep(api, keys, { email: 'sunil@example.com' });
    const typed = await payAndKeep(api, keys, { email: 'SUNIL@example.com', typed: true, number: '4111111111111111' });
    assert.equal(typed.card.customerEmail, 'SUNIL@example.com', 'kept for the email the payer gave');
    const customers = (await api.request('/v1/customers?email=sunil@example.com', { key: keys.sk_test })).body.data;
    assert.deepEqual(customers.map((c: any) => [c.id, c.defaultCardId]), [[existing.id, named.card.id]]);
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

describe('saved cards: a payer cannot change someone else\'s card', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api?.close());

  const { post, read, advance, customerWithCard, monthly, invoicesOf } = billingFlow(() => ({ api, keys }));

  it('a payer typing an existing customer\'s email on a public payment link that keeps cards: the customer\'s default card stays, and the renewal charges it', async () => {
    const start = '2027-01-31T04:30:00.000Z';
    const { clock, customer, card: original } = await customerWithCard('victim@example.com', start, '01/39');
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    await api.workflows.settle();
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'active');

    const link = await post('/v1/payment_links', { amountCents: 5000, description: 'Tea sampler', saveCard: true });
    const { card: payers } = await payAndKeep(api, keys, { linkUrl: link.url, email: 'Victim@example.com', number: '4111111111111111' });
    assert.equal(payers.last4, '1111');
    assert.notEqual(payers.id, original.id);
    const customers = (await read('/v1/customers?email=victim@example.com')).data;
    assert.deepEqual(customers.map((c: any) => [c.id, c.defaultCardId]), [[customer.id, original.id]], 'no customer of that email has the payer\'s card');

    await advance(clock.id, '2027-03-01T00:00:00.000Z');
    const [, renewal] = await invoicesOf(subscription.id);
    assert.deepEqual([renewal.billingReason, renewal.status], ['subscription_cycle', 'paid']);
    const charged = await api.knex('payments').where({ invoice_id: renewal.id, status: 'succeeded' }).pluck('saved_card_id');
    assert.deepEqual(charged, [original.id], 'the renewal charged the customer\'s own card');
  });

  it('a payer on a public payment link with a new email: a new customer gets the card', async () => {
    const link = await post('/v1/payment_links', { amountCents: 5000, description: 'Tea sampler', saveCard: true });
    const { card } = await payAndKeep(api, keys, { linkUrl: link.url, email: 'new-payer@example.com' });
    const [customer, ...more] = (await read('/v1/customers?email=new-payer@example.com')).data;
    assert.equal(more.length, 0);
    assert.deepEqual([customer.name, customer.defaultCardId], ['Nimal Perera', card.id]);
  });

  it('a checkout the merchant created naming the customer still makes the card that customer\'s default', async () => {
    const { customer, card: first } = await customerWithCard('named@example.com', '2027-01-31T04:30:00.000Z', '01/39');
    assert.equal((await read(`/v1/customers/${customer.id}`)).defaultCardId, first.id);
    const { card: second } = await payAndKeep(api, keys, { email: 'named@example.com', number: '4111111111111111' });
    assert.equal((await read(`/v1/customers/${customer.id}`)).defaultCardId, second.id);
  });

  it('on an invoice\'s page the card is the invoice\'s customer\'s, whatever email the payer types', async () => {
    const { customer: other, card: othersCard } = await customerWithCard('someone-else@example.com', '2027-01-31T04:30:00.000Z', '01/39');
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: '2027-01-31T04:30:00.000Z' });
    // No name: the invoice's page asks the payer for their details.
    const customer = await post('/v1/customers', { email: 'no-name@example.com', testClockId: clock.id });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    await api.workflows.settle();
    const checkoutUrl = await payerCheckout(api, subscription.checkoutUrl);
    const back = await payAtProcessor(api, checkoutUrl, { number: '4111111111111111', expiry: '01/39', cvv: '100' }, { ...DETAILS, email: 'someone-else@example.com', saveCard: 'yes' });
    await get(back);
    await api.workflows.settle();
    const kept = (await read(`/v1/customers/${customer.id}`)).defaultCardId;
    assert.equal((await read(`/v1/cards/${kept}`)).customerEmail, 'no-name@example.com');
    assert.equal((await read(`/v1/customers/${other.id}`)).defaultCardId, othersCard.id);
  });

  it('a publishable key\'s checkout naming a customer is a payer\'s: an existing customer\'s default card stays', async () => {
    const { customer, card } = await customerWithCard('pk-named@example.com', '2027-01-31T04:30:00.000Z', '01/39');
    const checkout = (await api.request('/v1/checkouts', { key: keys.pk_test, idempotencyKey: ik(), body: { amountCents: 5000, description: 'Tea', saveCard: true, customer: { ...DETAILS, email: 'pk-named@example.com' } } })).body;
    const back = await payAtProcessor(api, checkout.url, { number: '4111111111111111', expiry: '01/39', cvv: '100' }, { saveCard: 'yes' });
    await get(back);
    await api.workflows.settle();
    assert.equal((await api.request(`/v1/payments/${checkout.payment.id}`, { key: keys.sk_test })).body.cardSave, 'saved');
    assert.equal((await read(`/v1/customers/${customer.id}`)).defaultCardId, card.id);
  });
});
