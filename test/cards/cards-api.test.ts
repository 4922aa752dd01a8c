// The Saved cards endpoints over HTTP: the list (one list of the newest 200), get, delete, and the
// charge's answers and errors; the Idempotency-Key and the monthly limit under concurrency.
import assert from 'node:assert/strict';
import { updateAccount } from '../../db/accounts';
import { createApiKey } from '../../db/api-keys';
import type { MerchantKeys } from '../../db/merchants';
import { newId } from '../../crypto/ids';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';
import { charge, payAndKeep } from './card-flow';

describe('saved cards API', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  let accountId: string;
  let card: any;

  before(async () => {
    ({ api, keys, accountId } = await startApiWithMerchant());
    ({ card } = await payAndKeep(api, keys));
  });
  after(() => api?.close());

  const list = (query = '', key = keys.sk_test) => api.request(`/v1/cards${query}`, { key });

  describe('GET /v1/cards', () => {
    it('one list of the newest 200 cards not deleted, newest first; hasMore false, nextCursor null', async () => {
      // 205 more cards of this account, kept as the checkout's settlement keeps them.
      const base = api.clock.now().getTime();
      const rows = [];
      for (let i = 0; i < 205; i++) {
        const paymentId = newId('payment', base + i);
        await api.knex('payments').insert({ id: paymentId, account_id: accountId, mode: 'test', status: 'succeeded', amount_cents: 1000, created_at: new Date(base + i) });
        rows.push({
          id: newId('savedCard', base + i), account_id: accountId, mode: 'test', customer_email: `bulk${i}@example.com`, scheme: 'visa', last4: '1111',
          expiry_month: 1, expiry_year: 2039, processor_token: null, payment_id: paymentId, consent_at: new Date(base), consent_locale: 'en',
          consent_wording: 'Save this card', created_at: new Date(base + i),
        });
      }
      await api.knex('saved_cards').insert(rows);
      const answer = await list();
      assert.equal(answer.status, 200);
      assert.equal(answer.body.object, 'list');
      assert.equal(answer.body.data.length, 200);
      assert.equal(answer.body.hasMore, false);
      assert.equal(answer.body.nextCursor, null);
      assert.equal(answer.body.data[0].id, rows[204]!.id);
      assert.equal(answer.body.data[199].id, rows[5]!.id);
      // limit and cursor are taken and change nothing.
      assert.deepEqual((await list(`?limit=5&cursor=${rows[100]!.id}`)).body, answer.body);
      await api.knex('saved_cards').whereIn('id', rows.map((r) => r.id)).delete();
      await api.knex('payments').whereIn('id', rows.map((r) => r.payment_id)).delete();
    });

    it('customerEmail: only that email\'s cards, any letter case; deleted cards left out', async () => {
      const other = (await payAndKeep(api, keys, { email: 'Sita@Example.com' })).card;
      const second = (await payAndKeep(api, keys, { email: 'sita@example.com' })).card;
      assert.deepEqual((await list('?customerEmail=SITA%40example.com')).body.data.map((c: any) => c.id), [second.id, other.id]);
      assert.equal((await api.request(`/v1/cards/${other.id}`, { method: 'DELETE', key: keys.sk_test })).status, 200);
      assert.deepEqual((await list('?customerEmail=sita%40example.com')).body.data.map((c: any) => c.id), [second.id]);
      assert.ok(!(await list()).body.data.some((c: any) => c.id === other.id));
      assert.deepEqual((await list('?customerEmail=nobody%40example.com')).body.data, []);
    });

    it('400 for a query it does not take: customerEmail of 2 or 255 characters, a cursor of another kind, an unknown parameter', async () => {
      for (const query of ['?customerEmail=ab', `?customerEmail=${'a'.repeat(243)}%40example.com`, '?cursor=pay_0000000000000000000000', '?limit=101', '?email=a%40b.c']) {
        const answer = await list(query);
        assert.equal(answer.status, 400, query);
        assert.equal(answer.body.code, 'VALIDATION_FAILED');
      }
      assert.equal((await list(`?customerEmail=${'a'.repeat(242)}%40example.com`)).status, 200, '254 characters are taken');
    });

    it('keys: a publishable key is refused (403), a key without cards:read too; the live key sees no test card', async () => {
      assert.equal((await list('', keys.pk_test)).body.reason, 'key_not_permitted');
      const { key } = await createApiKey(api.knex, { accountId, kind: 'secret', mode: 'test', permissions: ['payments:read'], now: api.clock.now() });
      assert.equal((await list('', key)).body.reason, 'key_not_permitted');
      assert.deepEqual((await list('', keys.sk_live)).body.data, []);
    });
  });

  describe('GET /v1/cards/{id}', () => {
    it('the card; 404 for no such card, another account\'s, or a malformed id; mode_mismatch for the live key', async () => {
      assert.deepEqual((await api.request(`/v1/cards/${card.id}`, { key: keys.sk_test })).body, card);
      const missing = await api.request(`/v1/cards/${newId('savedCard', Date.now())}`, { key: keys.sk_test });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, 'NOT_FOUND');
      assert.equal((await api.request('/v1/cards/card_nope', { key: keys.sk_test })).status, 404);
      const live = await api.request(`/v1/cards/${card.id}`, { key: keys.sk_live });
      assert.equal(live.status, 404);
      assert.equal(live.body.reason, 'mode_mismatch');
      const other = await api.merchant({ activate: true });
      assert.equal((await api.request(`/v1/cards/${card.id}`, { key: other.keys.sk_test })).status, 404);
    });
  });

  describe('DELETE /v1/cards/{id}', () => {
    it('retires the card and deletes its token at the processor; deleting again answers the same card; a deleted card is still readable', async () => {
      const { card: doomed } = await payAndKeep(api, keys, { email: 'doomed@example.com' });
      const deletedAt = api.clock.now();
      const first = await api.request(`/v1/cards/${doomed.id}`, { method: 'DELETE', key: keys.sk_test });
      assert.equal(first.status, 200);
      assert.deepEqual(first.body, { ...doomed, active: false, retiredAt: deletedAt.toISOString() });
      const token = (await api.knex('saved_cards').where({ id: doomed.id }).first()).processor_token;
      assert.ok((await api.knex('sandbox_tokens').where({ token }).first()).deleted_at, 'the token is deleted at the processor');
      await api.clock.advance(60_000);
      const again = await api.request(`/v1/cards/${doomed.id}`, { method: 'DELETE', key: keys.sk_test });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, first.body);
      assert.deepEqual((await api.request(`/v1/cards/${doomed.id}`, { key: keys.sk_test })).body, first.body);
    });

    it('needs cards:charge and a secret key; 404 for no such card; mode_mismatch for the live key', async () => {
      const { key } = await createApiKey(api.knex, { accountId, kind: 'secret', mode: 'test', permissions: ['cards:read'], now: api.clock.now() });
      assert.equal((await api.request(`/v1/cards/${card.id}`, { method: 'DELETE', key })).body.reason, 'key_not_permitted');
      assert.equal((await api.request(`/v1/cards/${card.id}`, { method: 'DELETE', key: keys.pk_test })).body.reason, 'key_not_permitted');
      assert.equal((await api.request(`/v1/cards/${newId('savedCard', Date.now())}`, { method: 'DELETE', key: keys.sk_test })).status, 404);
      assert.equal((await api.request(`/v1/cards/${card.id}`, { method: 'DELETE', key: keys.sk_live })).body.reason, 'mode_mismatch');
      assert.equal((await api.request(`/v1/cards/${card.id}`, { key: keys.sk_test })).body.active, true);
    });
  });

  describe('POST /v1/cards/{id}/charge', () => {
    it('201: a payment processing, savedCardId set, checkoutId null, the card and the customer\'s email on it', async () => {
      const answer = await charge(api, keys.sk_test, card.id, { amountCents: 150000, description: 'Tea, March', reference: 'inv-2039-03' });
      assert.equal(answer.status, 201);
      const p = answer.body;
      assert.match(p.id, /^pay_[0-9a-z]{24}$/);
      assert.deepEqual(
        { status: p.status, amountCents: p.amountCents, currency: p.currency, description: p.description, reference: p.reference, savedCardId: p.savedCardId, checkoutId: p.checkoutId, card: p.card, customer: p.customer, cardSave: p.cardSave, feeCents: p.feeCents, succeededAt: p.succeededAt },
        { status: 'processing', amountCents: 150000, currency: 'LKR', description: 'Tea, March', reference: 'inv-2039-03', savedCardId: card.id, checkoutId: null, card: { scheme: 'mastercard', last4: '0008' }, customer: { name: null, email: 'nimal@example.com', phone: null }, cardSave: 'not_requested', feeCents: null, succeededAt: null },
      );
      assert.deepEqual((await api.request(`/v1/payments/${p.id}`, { key: keys.sk_test })).body, p);
      assert.equal((await api.service.orchestration.port.describe(`charge/${p.id}`))?.status, 'RUNNING');
    });

    it('the description and reference are kept exactly as sent, whatever characters they hold', async () => {
      const description = "O'Brien's \\ \"tea\" ; drop table payments; -- $1 ප්‍රේම 😀";
      const reference = "ref'); --\\$17";
      const answer = await charge(api, keys.sk_test, card.id, { amountCents: 1000, description, reference });
      assert.equal(answer.status, 201);
      assert.equal(answer.body.description, description);
      assert.equal(answer.body.reference, reference);
      const row = await api.knex('payments').where({ id: answer.body.id }).first();
      assert.deepEqual([row.description, row.reference], [description, reference]);
    });

    it('20 concurrent charges with one Idempotency-Key make exactly one payment', async () => {
      const { card: once } = await payAndKeep(api, keys, { email: 'once@example.com' });
      const key = ik('concurrent');
      const answers = await Promise.all(Array.from({ length: 20 }, () => charge(api, keys.sk_test, once.id, { amountCents: 200000, description: 'Once' }, key)));
      const payments = await api.knex('payments').where({ saved_card_id: once.id });
      assert.equal(payments.length, 1);
      const created = answers.filter((a) => a.status === 201);
      assert.ok(created.length >= 1);
      for (const a of created) assert.equal(a.body.id, payments[0].id);
      for (const a of answers.filter((x) => x.status !== 201)) {
        assert.equal(a.status, 409);
        assert.equal(a.body.reason, 'idempotency_key_in_progress');
      }
      assert.equal((await api.knex('sandbox_charges').where({ reference: `${payments[0].id}.1` })).length, 1, 'one charge at the processor');
      // Later, the same key and body replay the answer; another body is refused.
      const replay = await charge(api, keys.sk_test, once.id, { amountCents: 200000, description: 'Once' }, key);
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(replay.body.id, payments[0].id);
      assert.equal((await charge(api, keys.sk_test, once.id, { amountCents: 200001, description: 'Once' }, key)).body.reason, 'idempotency_key_reused');
    });

    it('a deleted card cannot be charged: 409 card_not_reusable, and no payment is made', async () => {
      const { card: gone } = await payAndKeep(api, keys, { email: 'gone@example.com' });
      await api.request(`/v1/cards/${gone.id}`, { method: 'DELETE', key: keys.sk_test });
      const answer = await charge(api, keys.sk_test, gone.id);
      assert.equal(answer.status, 409);
      assert.equal(answer.body.reason, 'card_not_reusable');
      assert.equal((await api.knex('payments').where({ saved_card_id: gone.id })).length, 0);
    });

    it('card_not_reusable for a card the processor holds nothing for', async () => {
      const { card: bare } = await payAndKeep(api, keys, { email: 'bare@example.com' });
      await api.knex('saved_cards').where({ id: bare.id }).update({ processor_token: null });
      assert.equal((await charge(api, keys.sk_test, bare.id)).body.reason, 'card_not_reusable');
    });

    it('the body: 400 amount outside 1000..100000000 (with a failed request\'s key reusable), 400 for a missing description, a fraction, or a field it does not take', async () => {
      const key = ik('body');
      for (const amountCents of [999, 100000001]) {
        const answer = await charge(api, keys.sk_test, card.id, { amountCents, description: 'x' }, key);
        assert.equal(answer.status, 400);
        assert.equal(answer.body.reason, 'amount');
        assert.deepEqual(answer.body.fields.map((f: any) => f.path), ['amountCents']);
      }
      for (const body of [{ amountCents: 1000 }, { amountCents: 1000.5, description: 'x' }, { amountCents: 1000, description: 'x', currency: 'LKR' }, { amountCents: 1000, description: '' }, { amountCents: 1000, description: 'x', reference: 'r'.repeat(65) }]) {
        const answer = await charge(api, keys.sk_test, card.id, body, key);
        assert.equal(answer.status, 400, JSON.stringify(body));
        assert.equal(answer.body.code, 'VALIDATION_FAILED');
      }
      assert.equal((await charge(api, keys.sk_test, card.id, { amountCents: 1000, description: 'x' }, key)).status, 201);
    });

    it('keys and ids: no Idempotency-Key 400, publishable 403, without cards:charge 403, no such card 404, the live key mode_mismatch', async () => {
      const noKey = await api.request(`/v1/cards/${card.id}/charge`, { key: keys.sk_test, body: { amountCents: 1000, description: 'x' } });
      assert.equal(noKey.body.reason, 'idempotency_key_missing');
      assert.equal((await charge(api, keys.pk_test, card.id)).body.reason, 'key_not_permitted');
      const { key } = await createApiKey(api.knex, { accountId, kind: 'secret', mode: 'test', permissions: ['cards:read'], now: api.clock.now() });
      assert.equal((await charge(api, key, card.id)).body.reason, 'key_not_permitted');
      assert.equal((await charge(api, keys.sk_test, newId('savedCard', Date.now()))).status, 404);
      assert.equal((await charge(api, keys.sk_live, card.id)).body.reason, 'mode_mismatch');
    });

    it('merchant_not_live: a live charge before the account is activated; merchant_unavailable: a suspended account\'s card', async () => {
      const fresh = await api.merchant();
      const answer = await charge(api, fresh.keys.sk_live, newId('savedCard', Date.now()));
      assert.equal(answer.status, 409);
      assert.equal(answer.body.reason, 'merchant_not_live');
      const merchant = await api.merchant({ activate: true });
      const { card: kept } = await payAndKeep(api, merchant.keys, { email: 'suspended-charge@example.com' });
      await updateAccount(api.knex, merchant.accountId, { status: 'suspended' }, api.clock.now());
      // Servers learn of the suspension by a notification (db/active-key-cache.ts): wait for it.
      await eventually(() => api.request('/v1/account', { key: merchant.keys.sk_test }), (res) => res.body.status === 'suspended');
      const refused = await charge(api, merchant.keys.sk_test, kept.id);
      assert.equal(refused.status, 409);
      assert.equal(refused.body.reason, 'merchant_unavailable');
      assert.equal((await api.knex('payments').where({ saved_card_id: kept.id })).length, 0);
    });

    it('monthly_limit_reached: the month\'s succeeded and processing payments plus the charge may not pass the plan\'s limit; two racing charges cannot both squeeze under it', async () => {
      const merchant = await api.merchant({ activate: true });
      const { card: big } = await payAndKeep(api, merchant.keys, { email: 'big@example.com', amountCents: 40_000_000 });
      // starter: 100,000,000 cents a month; 40,000,000 used by the checkout's payment.
      const racing = await Promise.all([
        charge(api, merchant.keys.sk_test, big.id, { amountCents: 35_000_000, description: 'a' }),
        charge(api, merchant.keys.sk_test, big.id, { amountCents: 35_000_000, description: 'b' }),
      ]);
      assert.deepEqual(racing.map((a) => a.status).sort(), [201, 409]);
      assert.equal(racing.find((a) => a.status === 409)!.body.reason, 'monthly_limit_reached');
      // 75,000,000 used: 25,000,000 fit exactly, one cent more does not.
      assert.equal((await charge(api, merchant.keys.sk_test, big.id, { amountCents: 25_000_001, description: 'c' })).body.reason, 'monthly_limit_reached');
      assert.equal((await charge(api, merchant.keys.sk_test, big.id, { amountCents: 25_000_000, description: 'd' })).status, 201);
      assert.equal((await api.knex('payments').where({ saved_card_id: big.id })).length, 2);
      // The limit's notices, as for every way of taking a payment: reached at the refusal, approaching at 80 % and over.
      const notices = await api.knex('events').where({ account_id: merchant.accountId }).where('type', 'like', 'account.limit.%').orderBy('id').pluck('type');
      assert.deepEqual(notices, ['account.limit.reached', 'account.limit.approaching']);
    });

    it('a burst of charges opened together (db/saved-cards.ts): exactly as many as fit under the limit, whatever their order', async () => {
      const merchant = await api.merchant({ activate: true });
      const { card } = await payAndKeep(api, merchant.keys, { email: 'burst@example.com', amountCents: 40_000_000 });
      // 40,000,000 of the starter plan's 100,000,000 used: six of 10,000,000 fit, the seventh and eighth do not.
      const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => charge(api, merchant.keys.sk_test, card.id, { amountCents: 10_000_000, description: `burst ${i}` })));
      assert.deepEqual(burst.map((a) => a.status).sort(), [201, 201, 201, 201, 201, 201, 409, 409]);
      assert.ok(burst.filter((a) => a.status === 409).every((a) => a.body.reason === 'monthly_limit_reached'));
      const made = await api.knex('payments').where({ saved_card_id: card.id }).pluck('id');
      assert.deepEqual(made.sort(), burst.filter((a) => a.status === 201).map((a) => a.body.id).sort());
      assert.equal((await api.request('/v1/account', { key: merchant.keys.sk_test })).body.monthlyLimit.usedCents, 100_000_000);
    });
  });
});
