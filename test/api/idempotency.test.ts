import assert from 'node:assert/strict';
import { startApiWithMerchant, ik, type TestApi } from '../support/api';
import type { MerchantKeys } from '../../db/merchants';
import { IDEMPOTENCY_WINDOW_MS, ABANDONED_AFTER_MS } from '../../db/idempotency-keys';

describe('Idempotency-Key', () => {
  let api: TestApi;
  let keys: MerchantKeys;
  let accountId: string;

  before(async () => ({ api, keys, accountId } = await startApiWithMerchant()));
  after(() => api.close());

  const create = (idempotencyKey: string | undefined, body: unknown = { email: `${idempotencyKey ?? 'none'}@example.com` }, key = keys.sk_test) =>
    api.request('/v1/customers', { key, body, idempotencyKey });

  const customerCount = async (email: string) =>
    Number((await api.knex('customers').whereRaw('lower(email) = lower(?)', [email]).count('* as n').first())!.n);

  it('is required on IK writes, with the spec\'s pattern (400 idempotency_key_missing)', async () => {
    for (const bad of [undefined, '', 'short', 'x'.repeat(256), 'has space here', 'slash/not-ok', 'ünïcödé-key']) {
      const res = await create(bad, { email: 'missing@example.com' });
      assert.equal(res.status, 400, String(bad));
      assert.equal(res.body.reason, 'idempotency_key_missing', String(bad));
    }
    for (const good of ['abcdefgh', 'A-Z_0:9.x', 'x'.repeat(255)]) {
      const res = await create(good, { email: `ok-${good.length}-${good.slice(0, 3)}@example.com` });
      assert.equal(res.status, 201, good);
    }
    assert.equal(await customerCount('missing@example.com'), 0);
  });

  it('replays the first answer with its status, body and Idempotent-Replayed: true, creating nothing again', async () => {
    const key = ik();
    const first = await create(key, { email: 'replay@example.com', name: 'Nimal' });
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const again = await create(key, { name: 'Nimal', email: 'replay@example.com' });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal(again.text, first.text, 'the same bytes');
    assert.equal(again.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(first.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(await customerCount('replay@example.com'), 1);
  });

  it('answers 409 idempotency_key_reused for another body (method and path are in the same fingerprint)', async () => {
    const key = ik();
    assert.equal((await create(key, { email: 'reuse@example.com' })).status, 201);
    const otherBody = await create(key, { email: 'reuse2@example.com' });
    assert.equal(otherBody.status, 409);
    assert.equal(otherBody.body.reason, 'idempotency_key_reused');
    assert.equal(await customerCount('reuse2@example.com'), 0);
  });

  it('scopes keys to the account and the mode', async () => {
    const key = ik();
    const test = await create(key, { email: 'scope@example.com' });
    const live = await create(key, { email: 'scope@example.com' }, keys.sk_live);
    assert.equal(live.status, 201);
    assert.equal(live.headers.get('idempotent-replayed'), null);
    assert.notEqual(live.body.id, test.body.id);
    const other = await api.merchant({ name: 'Other' });
    const otherAnswer = await create(key, { email: 'scope@example.com' }, other.keys.sk_test);
    assert.equal(otherAnswer.status, 201);
    assert.equal(otherAnswer.headers.get('idempotent-replayed'), null);
  });

  it('answers 409 idempotency_key_in_progress while the first request runs, and takes over a key whose request died', async () => {
    const key = ik();
    const body = { email: 'progress@example.com' };
    const first = await create(key, body);
    // Put the key back in its running state, as the first request holds it while it runs.
    await api.knex('idempotency_keys').where({ key }).update({ response_status: null, response_body: null, locked_at: api.clock.now() });
    const during = await create(key, body);
    assert.equal(during.status, 409);
    assert.equal(during.body.reason, 'idempotency_key_in_progress');
    const otherRequest = await create(key, { email: 'other@example.com' });
    assert.equal(otherRequest.body.reason, 'idempotency_key_reused');
    // A request that died holding its key is taken over once it is clearly abandoned.
    await api.clock.advance(ABANDONED_AFTER_MS);
    const retried = await create(key, body);
    assert.equal(retried.status, 200, 'the retry ran: the email is already a customer');
    assert.equal(retried.body.id, first.body.id);
    assert.equal(await customerCount('progress@example.com'), 1);
  });

  it('does not consume the key when the request fails', async () => {
    const key = ik();
    const failed = await create(key, { email: 'fail@example.com', phone: '12345' });
    assert.equal(failed.status, 400);
    const fixed = await create(key, { email: 'fail@example.com', phone: '077 123 4567' });
    assert.equal(fixed.status, 201);
    assert.equal(fixed.body.phone, '+94771234567');
    const notLive = await api.merchant({ name: 'Not live' });
    const refused = await create(key, { email: 'x@example.com' }, notLive.keys.sk_live);
    assert.equal(refused.body.reason, 'merchant_not_live');
    assert.equal(await api.knex('idempotency_keys').where({ account_id: notLive.accountId }).count('* as n').first().then((r) => Number(r!.n)), 0);
  });

  it('counts the key as new after 24 hours', async () => {
    const key = ik();
    assert.equal((await create(key, { email: 'old@example.com' })).status, 201);
    await api.clock.advance(IDEMPOTENCY_WINDOW_MS - 1);
    assert.equal((await create(key, { email: 'new@example.com' })).body.reason, 'idempotency_key_reused');
    await api.clock.advance(1);
    const fresh = await create(key, { email: 'new@example.com' });
    assert.equal(fresh.status, 201);
    assert.equal(fresh.headers.get('idempotent-replayed'), null);
    assert.equal(await customerCount('new@example.com'), 1);
  });

  it('creates exactly one object for 50 simultaneous identical requests', async () => {
    const key = ik('concurrent');
    const body = { email: 'fifty@example.com', name: 'Fifty' };
    const answers = await Promise.all(Array.from({ length: 50 }, () => create(key, body)));
    const statuses = answers.map((a) => a.status);
    for (const a of answers) {
      if (a.status === 201) assert.equal(a.body.email, 'fifty@example.com');
      else {
        assert.equal(a.status, 409, JSON.stringify(a.body));
        assert.equal(a.body.reason, 'idempotency_key_in_progress');
      }
    }
    const firsts = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    assert.equal(firsts.length, 1, `statuses: ${statuses.join(',')}`);
    assert.ok(answers.filter((a) => a.status === 201).every((a) => a.body.id === firsts[0]!.body.id));
    assert.equal(await customerCount('fifty@example.com'), 1);
    assert.equal(await api.knex('idempotency_keys').where({ account_id: accountId, key }).count('* as n').first().then((r) => Number(r!.n)), 1);
  });

  // POST /v1/checkouts records its key with its answer in the statement that writes the checkout
  // (transaction: 'statement'): the same promises, kept without a claim or a transaction.
  describe('on a write done in one statement (POST /v1/checkouts)', () => {
    const create = (idempotencyKey: string, body: unknown, key = keys.sk_test) => api.request('/v1/checkouts', { key, body, idempotencyKey });
    const count = async (table: string, where: Record<string, unknown>) =>
      Number((await api.knex(table).where(where).count('* as n').first())!.n);

    it('replays the first answer\'s bytes, and 409 idempotency_key_reused for another body', async () => {
      const key = ik();
      const first = await create(key, { amountCents: 1000, description: 'once', reference: 'replay' });
      assert.equal(first.status, 201);
      const again = await create(key, { reference: 'replay', description: 'once', amountCents: 1000 });
      assert.equal(again.status, 201);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.text, first.text, 'the same bytes');
      assert.equal(again.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal((await create(key, { amountCents: 2000, description: 'other' })).body.reason, 'idempotency_key_reused');
      // The suite's merchant has other checkouts: count those whose payment is this one's.
      const checkouts = await api.knex('checkouts').join('payments', 'payments.id', 'checkouts.payment_id').where('payments.reference', 'replay').count('* as n').first();
      assert.equal(Number(checkouts!.n), 1);
      assert.equal(await count('payments', { reference: 'replay' }), 1);
      const stored = await api.knex('idempotency_keys').where({ key }).first();
      assert.equal(stored.response_status, 201);
      assert.equal(stored.response_body, first.text);
      const live = await create(key, { amountCents: 1000, description: 'once', reference: 'replay' }, keys.sk_live);
      assert.equal(live.headers.get('idempotent-replayed'), null, 'keys are scoped to the mode');
      assert.notEqual(live.body.id, first.body.id);
    });

    it('creates exactly one checkout for 50 simultaneous identical requests, every answer the same', async () => {
      const key = ik('concurrent');
      const body = { amountCents: 5000, description: 'fifty at once', reference: 'fifty' };
      const answers = await Promise.all(Array.from({ length: 50 }, () => create(key, body)));
      assert.deepEqual([...new Set(answers.map((a) => a.status))], [201], answers.map((a) => a.text).join('\n'));
      assert.equal(answers.filter((a) => a.headers.get('idempotent-replayed') === null).length, 1);
      assert.equal(new Set(answers.map((a) => a.text)).size, 1);
      assert.equal(await count('payments', { reference: 'fifty' }), 1);
      assert.equal(await count('checkouts', { id: answers[0]!.body.id }), 1);
      assert.equal(api.engine.describe(`checkout/${answers[0]!.body.id}`)?.status, 'RUNNING');
    });

    it('a refused request writes nothing and leaves its key free', async () => {
      const key = ik();
      assert.equal((await create(key, { amountCents: 999, description: 'too small' })).body.reason, 'amount');
      assert.equal(await count('idempotency_keys', { key }), 0);
      const fixed = await create(key, { amountCents: 1000, description: 'fixed' });
      assert.equal(fixed.status, 201);
      assert.equal(fixed.headers.get('idempotent-replayed'), null);
    });

    it('answers from a held key before refusing: a retry replays even when the month has since filled up', async () => {
      const { keys: k, accountId: account } = await api.merchant({ activate: true });
      const key = ik();
      const body = { amountCents: 1000, description: 'made before the month filled' };
      const first = await create(key, body, k.sk_test);
      assert.equal(first.status, 201);
      // The whole of the starter plan's month with the processor.
      const big = (await create(ik(), { amountCents: 100_000_000, description: 'fills the month' }, k.sk_test)).body;
      await api.knex('payments').where({ id: big.payment.id }).update({ status: 'processing' });
      const retried = await create(key, body, k.sk_test);
      assert.equal(retried.status, 201, retried.text);
      assert.equal(retried.headers.get('idempotent-replayed'), 'true');
      assert.equal(retried.text, first.text);
      // Another request the handler would refuse (line items totalling under the minimum).
      const refused = { lineItems: [{ name: 'Tea', unitAmountCents: 100, quantity: 1 }] };
      assert.equal((await create(key, refused, k.sk_test)).body.reason, 'idempotency_key_reused');
      const fresh = ik();
      assert.equal((await create(fresh, body, k.sk_test)).body.reason, 'monthly_limit_reached');
      assert.equal(await count('idempotency_keys', { account_id: account, key: fresh }), 0, 'the refusal did not take its key');
    });

    it('answers 409 idempotency_key_in_progress while another request holds the key, and counts the key as new after 24 hours', async () => {
      const key = ik();
      const body = { amountCents: 1000, description: 'held' };
      await create(key, body);
      await api.knex('idempotency_keys').where({ key }).update({ response_status: null, response_body: null, locked_at: api.clock.now() });
      assert.equal((await create(key, body)).body.reason, 'idempotency_key_in_progress');
      await api.clock.advance(IDEMPOTENCY_WINDOW_MS);
      const fresh = await create(key, { amountCents: 2000, description: 'a day later' });
      assert.equal(fresh.status, 201);
      assert.equal(fresh.headers.get('idempotent-replayed'), null);
      assert.equal((await api.knex('idempotency_keys').where({ key }).first()).response_body, fresh.text);
    });
  });
});
